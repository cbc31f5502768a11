"""The pytest plugin: --device parsing, and the platforms marker skipping
(with its reason) a test written for another platform."""
import pytest
from pypto_sim.pytest_plugin import parse_devices

pytest_plugins = ["pytester"]


def test_device_ranges_and_lists():
    assert parse_devices("0-3,8") == [0, 1, 2, 3, 8]
    assert parse_devices("5") == [5]
    with pytest.raises(pytest.UsageError):
        parse_devices("1,1")


def test_platforms_marker_skips_other_platforms(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.platforms("a5", "a5sim")
        def test_only_a5(test_config):
            assert test_config.platform == "a5"

        def test_everywhere(device_ids):
            assert device_ids == [0, 1]
        """)
    result = pytester.runpytest_inprocess("-p", "pypto_sim.pytest_plugin", "--platform=a2a3",
                                          "--device=0,1", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*the test runs on a5, a5sim; --platform is a2a3*"])
