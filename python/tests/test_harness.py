"""PyPTO's test-case idiom (tests/st/runtime): a PTOTestCase subclass with its
tensors and expected outputs, run by the plugin's ``test_runner`` fixture on
the simulator. ``harness.core.harness`` is served by the plugin, as it is for
PyPTO's own modules under --noconftest."""
import pytest
import pypto.language as pl
import pypto.language.distributed as pld
from harness.core.harness import PLATFORMS, DataType, PTOTestCase, TensorSpec
from pypto.runtime.tensor_spec import ScalarSpec

torch = pytest.importorskip("torch", reason="python3-torch is not installed")

M = 16
N = 32
NR = pl.dynamic("NR")


@pl.program
class HostScale:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self,
        src: pl.Tensor[[M, N], pl.FP32],
        dst: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        t = pl.mul(pl.load(src, [0, 0], [M, N]), 3.0)
        return pl.store(t, [0, 0], dst)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        src: pl.Tensor[[M, N], pl.FP32],
        dst: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        return self.scale(src, dst)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(
        self,
        src: pl.Tensor[[NR, M, N], pl.FP32],
        dst: pl.Out[pl.Tensor[[NR, M, N], pl.FP32]],
    ) -> pl.Tensor[[NR, M, N], pl.FP32]:
        for r in pl.range(pld.world_size()):
            self.chip(src[r], dst[r], device=r)
        return dst


@pl.program
class OneChipAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def add(
        self,
        a: pl.Tensor[[M, N], pl.FP32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        t = pl.add(pl.load(a, [0, 0], [M, N]), 1.0)
        return pl.store(t, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(
        self,
        a: pl.Tensor[[M, N], pl.FP32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        return self.add(a, out)


class HostScaleCase(PTOTestCase):
    __test__ = False

    def __init__(self, factor=3.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def get_name(self):
        return "host_scale"

    def define_tensors(self):
        # Declared in another order than the program's parameters: the
        # runner passes them by name.
        return [
            TensorSpec("dst", [1, M, N], DataType.FP32, is_output=True),
            TensorSpec("src", [1, M, N], DataType.FP32, init_value=torch.randn),
        ]

    def get_program(self):
        return HostScale

    def compute_expected(self, tensors, params=None):
        tensors["dst"][:] = tensors["src"] * self.factor


class OneChipAddCase(PTOTestCase):
    __test__ = False

    def get_name(self):
        return "one_chip_add"

    def define_tensors(self):
        return [TensorSpec("a", [M, N], DataType.FP32, init_value=2.0),
                TensorSpec("out", [M, N], DataType.FP32, is_output=True)]

    def get_program(self):
        return OneChipAdd

    def compute_expected(self, tensors, params=None):
        tensors["out"][:] = tensors["a"] + 1.0


def test_a_case_runs_and_its_outputs_match(test_runner):
    result = test_runner.run(HostScaleCase())
    assert result.passed, result.error
    assert result.sim_result.sim_time_us > 0


def test_a_wrong_expectation_fails_with_the_difference(test_runner):
    result = test_runner.run(HostScaleCase(factor=2.0))
    assert not result.passed
    assert "output 'dst' differs" in result.error and "max |diff|" in result.error


def test_scalar_arguments_are_reported(test_runner):
    class WithScalar(HostScaleCase):
        def define_scalars(self):
            return [ScalarSpec("n", 4)]

    result = test_runner.run(WithScalar())
    assert not result.passed and "scalar arguments (n)" in result.error


def test_a_program_without_a_host_orchestrator_runs_on_one_chip(test_runner):
    # pto-run's single-chip path: the kernel gets its orchestration, one chip.
    result = test_runner.run(OneChipAddCase())
    assert result.passed, result.error
    assert result.sim_result.sim_time_us > 0
    assert result.sim_result.dispatches_per_card == [1]


def test_a_single_chip_expectation_is_checked(test_runner):
    class Wrong(OneChipAddCase):
        def compute_expected(self, tensors, params=None):
            tensors["out"][:] = tensors["a"] + 2.0

    result = test_runner.run(Wrong())
    assert not result.passed and "output 'out' differs" in result.error


@pytest.mark.parametrize("platform", PLATFORMS)
def test_platform_variants_follow_the_platform_option(test_runner, platform, request):
    # The plugin runs only the variant --platform names (a2a3 by default).
    assert platform in request.config.getoption("--platform").split(",")
    assert test_runner.run(HostScaleCase(platform=platform)).passed


def test_a_real_harness_package_on_the_path_is_found_first(tmp_path, monkeypatch):
    # PyPTO's conftest puts its tests/st on sys.path: its own harness wins.
    import importlib  # noqa: PLC0415
    import sys  # noqa: PLC0415
    core = tmp_path / "harness" / "core"
    core.mkdir(parents=True)
    (tmp_path / "harness" / "__init__.py").write_text("")
    (core / "__init__.py").write_text("")
    (core / "harness.py").write_text("WHOSE = 'theirs'\n")
    for name in ("harness", "harness.core", "harness.core.harness"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert importlib.import_module("harness.core.harness").WHOSE == "theirs"
    for name in ("harness", "harness.core", "harness.core.harness"):
        monkeypatch.delitem(sys.modules, name, raising=False)
