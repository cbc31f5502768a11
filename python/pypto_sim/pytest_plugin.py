"""pytest plugin: the fixtures PyPTO's test modules use, on our simulator.

    python3 -m pytest TESTS -p pypto_sim.pytest_plugin [--platform=a2a3] [--device=0-7]

Fixtures: ``test_config`` (a RunConfig for --platform), ``device_ids`` (the
--device list: one simulated chip per id), ``optimization_strategy`` and
``test_runner`` (runs a PTOTestCase on the simulator, pypto_sim/harness.py).
``@pytest.mark.platforms(...)`` restricts a test to those platforms; a test
that excludes the chosen one is skipped with the reason. On PyPTO's own
checkout, add ``--confcutdir=tests/st/distributed`` (or ``tests/st/runtime``)
or ``--noconftest``: PyPTO's top conftest.py needs its private runtime
(docs/python.md says which names).
"""
import importlib.abc
import importlib.util
import sys

import pytest

from pypto.ir.distributed_compiled_program import DistributedConfig, platform_name
from pypto.ir.pass_manager import OptimizationStrategy
from pypto.runtime import runner


def pytest_addoption(parser):
    group = parser.getgroup("pypto_sim", "PTO programs on the simulator")
    group.addoption("--platform", action="store", default="a2a3",
                    help="the simulated platform (a2a3, a5, a3, a2a3_cluster, a5_supernode; "
                         "PyPTO's a2a3sim and a5sim run on a2a3 and a5); default a2a3")
    group.addoption("--device", action="store", default="0-7",
                    help="device ids, one simulated chip each: '0-7', '0,1', '0-3,8' "
                         "(default 0-7)")
    group.addoption("--codegen-only", action="store_true", default=False,
                    help="compile only: a test that would run a program is skipped at its call")


def parse_devices(text):
    """'0-3,8' -> [0, 1, 2, 3, 8] (PyPTO's --device syntax)."""
    ids = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            lo, hi = int(lo), int(hi)
            if hi < lo:
                raise pytest.UsageError(f"--device: empty range '{part}'")
            ids.extend(range(lo, hi + 1))
        else:
            ids.append(int(part))
    if not ids or len(set(ids)) != len(ids):
        raise pytest.UsageError(f"--device={text}: give distinct device ids")
    return ids


# PyPTO's test helper package as its test modules import it. Served from
# pypto_sim.harness only when no `harness` package is importable (PyPTO's
# conftest puts theirs on sys.path; with --noconftest nothing does).
_HARNESS_NAMES = ("harness", "harness.core", "harness.core.harness")
# Modules served by pypto_sim.harness itself (its runtime conftest imports
# is_hardware_available from the environment module).
_HARNESS_MODULES = ("harness.core.harness", "harness.core.environment")


class _HarnessFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname not in _HARNESS_NAMES + _HARNESS_MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self,
                                               is_package=fullname not in _HARNESS_MODULES)

    def create_module(self, spec):
        from pypto_sim import harness  # noqa: PLC0415
        if spec.name in _HARNESS_MODULES:
            return harness
        return None  # an empty package module

    def exec_module(self, module):
        if module.__name__ not in _HARNESS_MODULES:
            module.__path__ = []
            if module.__name__ == "harness.core":
                from pypto_sim import harness  # noqa: PLC0415
                for n in harness.__all__:
                    setattr(module, n, getattr(harness, n))


def _serve_harness():
    # Last on the meta path: a real `harness` on sys.path is found first.
    if not any(isinstance(f, _HarnessFinder) for f in sys.meta_path):
        sys.meta_path.append(_HarnessFinder())


# At import: PyPTO's conftest files are loaded before pytest_configure runs.
_serve_harness()


def pytest_configure(config):
    config.addinivalue_line("markers", "platforms(*ids): run the test only on these platforms")
    platform = config.getoption("--platform").split(",")[0]
    devices = parse_devices(config.getoption("--device"))
    runner.set_default_config(runner.RunConfig(
        platform=platform, device_id=devices[0],
        distributed_config=DistributedConfig(device_ids=devices)))


def pytest_collection_modifyitems(config, items):
    requested = [p.strip() for p in config.getoption("--platform").split(",") if p.strip()]
    platform = platform_name(requested[0])
    for item in items:
        # PyPTO's runtime tests are parametrized by a `platform` argument over
        # its platform ids; as with its conftest, --platform (a comma-separated
        # list) chooses which of them run.
        callspec = getattr(item, "callspec", None)
        param = callspec.params.get("platform") if callspec is not None else None
        if isinstance(param, str) and param not in requested:
            item.add_marker(pytest.mark.skip(
                reason=f"platform variant {param}; --platform is {','.join(requested)}"))
            continue
        marker = next(item.iter_markers(name="platforms"), None)
        if marker is None:
            continue
        allowed = {platform_name(p) for p in marker.args}
        if platform not in allowed:
            item.add_marker(pytest.mark.skip(
                reason=f"the test runs on {', '.join(marker.args)}; --platform is {platform}"))


@pytest.fixture(scope="session")
def device_ids(request):
    return parse_devices(request.config.getoption("--device"))


@pytest.fixture(scope="session")
def test_config(request, device_ids):
    return runner.RunConfig(platform=request.config.getoption("--platform").split(",")[0],
                            device_id=device_ids[0],
                            codegen_only=request.config.getoption("--codegen-only"))


@pytest.fixture(scope="session")
def test_runner(test_config):
    from pypto_sim.harness import TestRunner  # noqa: PLC0415
    return TestRunner(test_config)


@pytest.fixture
def optimization_strategy():
    return OptimizationStrategy.Default


@pytest.fixture(autouse=True)
def _codegen_only(request, monkeypatch):
    """--codegen-only: compile, then skip where the program would run."""
    if not request.config.getoption("--codegen-only"):
        return
    from pypto.ir.distributed_compiled_program import DistributedCompiledProgram  # noqa: PLC0415

    def skip(*args, **kwargs):
        pytest.skip("--codegen-only: the program is compiled, not run")

    monkeypatch.setattr(DistributedCompiledProgram, "__call__", skip)
