"""PyPTO's test-case interface (``PTOTestCase``, ``TensorSpec``, ``DataType``,
the platform lists) and a runner of ours that runs a case on the simulator.

PyPTO's ``tests/st/runtime`` modules import these names from their own test
helper, ``harness.core.harness`` (hw-native-sys/pypto ``tests/st/harness``),
and take a ``test_runner`` fixture whose ``run(case)`` returns a result with
``passed`` and ``error``. Their helper runs a case through PyPTO's private
runtime (golden files, a task-submit subprocess, ``simpler``); this module is
our own implementation of the same interface over ``pypto.ir.compile``: the
case's program is compiled for its platform, its tensors are made from their
specs, the program runs on the simulator, and every output is compared with
``compute_expected``'s result at the case's tolerances. The pytest plugin
serves this module under the name ``harness.core.harness`` when no other
``harness`` package is importable (``--noconftest``: PyPTO's conftest is what
puts theirs on ``sys.path``).
"""
import abc
import dataclasses
import enum
import glob
import typing

import pytest

from pypto import CompileError, RunError
from pypto.backend import BackendType
from pypto.ir.distributed_compiled_program import DistributedConfig, platform_name
from pypto.ir.pass_manager import OptimizationStrategy
from pypto.runtime.runner import RunConfig
from pypto.runtime.tensor_spec import ScalarSpec

SIM_PLATFORM_IDS = ("a2a3sim", "a5sim")
ONBOARD_PLATFORM_IDS = ("a2a3", "a5")
ALL_PLATFORM_IDS = (*SIM_PLATFORM_IDS, *ONBOARD_PLATFORM_IDS)
PLATFORMS = [pytest.param(p, id=p) for p in ALL_PLATFORM_IDS]
SIM_PLATFORMS = [pytest.param(p, id=p) for p in SIM_PLATFORM_IDS]
ONBOARD_PLATFORMS = [pytest.param(p, id=p) for p in ONBOARD_PLATFORM_IDS]

def is_hardware_available():
    """Whether this machine has Ascend NPU device nodes (PyPTO's check, which
    its tests/st/runtime/conftest.py uses to skip the onboard platform ids);
    the simulator's platforms need none."""
    return any(glob.glob(p) for p in ("/dev/davinci*", "/dev/npu*", "/dev/ascend*"))


_BACKENDS = {"a2a3": BackendType.Ascend910B, "a5": BackendType.Ascend950}


def platform_to_backend(platform):
    """The BackendType of a platform id (PyPTO's four, by the chip they name)."""
    backend = _BACKENDS.get(platform_name(platform))
    if backend is None:
        raise ValueError(f"Unknown platform '{platform}'. Expected one of {ALL_PLATFORM_IDS}.")
    return backend


class DataType(enum.Enum):
    """The element types a TensorSpec names, by PyPTO's harness values."""

    BF16 = "bf16"
    FP32 = "fp32"
    FP16 = "fp16"
    FP8E4M3FN = "fp8e4m3fn"
    FP8E8M0 = "fp8e8m0"
    FP4 = "fp4"
    INT32 = "int32"
    UINT32 = "uint32"
    INT16 = "int16"
    UINT16 = "uint16"
    INT8 = "int8"
    UINT8 = "uint8"
    INT64 = "int64"
    BOOL = "bool"

    @property
    def torch_dtype(self):
        import torch  # noqa: PLC0415
        # torch 1.13 has no unsigned 16/32-bit types: the signed type of the
        # same width carries the bits, as PyPTO's harness does.
        names = {"bf16": "bfloat16", "fp32": "float32", "fp16": "float16", "int32": "int32",
                 "uint32": "int32", "int16": "int16", "uint16": "int16", "int8": "int8",
                 "uint8": "uint8", "int64": "int64", "bool": "bool",
                 "fp8e4m3fn": "float8_e4m3fn", "fp8e8m0": "float8_e8m0fnu",
                 "fp4": "float4_e2m1fn_x2"}
        dtype = getattr(torch, names[self.value], None)
        if not isinstance(dtype, torch.dtype):
            raise ValueError(f"this torch ({torch.__version__}) has no torch.{names[self.value]}")
        return dtype


@dataclasses.dataclass
class TensorSpec:
    """One tensor of a case: ``init_value`` None (zeros), a number (filled), a
    tensor (cast), ``torch.randn`` / ``rand`` / ``zeros`` / ``ones`` (called with
    the shape) or another callable (called without arguments, then cast)."""

    name: str
    shape: list
    dtype: DataType
    init_value: typing.Any = None
    is_output: bool = False

    def create_tensor(self):
        import torch  # noqa: PLC0415
        dtype = self.dtype.torch_dtype
        v = self.init_value
        if v is None:
            return torch.zeros(self.shape, dtype=dtype)
        if isinstance(v, (bool, int, float)):
            return torch.full(self.shape, v, dtype=dtype)
        if isinstance(v, torch.Tensor):
            return v.to(dtype=dtype).clone()
        if callable(v):
            if v in (torch.randn, torch.rand, torch.zeros, torch.ones):
                return v(self.shape, dtype=dtype)
            return torch.as_tensor(v(), dtype=dtype)
        raise TypeError(f"tensor '{self.name}': unsupported init_value {type(v).__name__}")


class PTOTestCase(abc.ABC):
    """A program, its tensors and the expected outputs (PyPTO's interface).

    Subclasses define ``get_name``, ``define_tensors``, ``get_program`` and
    ``compute_expected``; ``define_scalars``, ``get_platform`` and the
    strategy / planner getters are optional."""

    __test__ = False

    def __init__(self, config=None, *, platform=None, backend_type=None, strategy=None,
                 memory_planner=None, enable_pypto_l0c_double_buffer=None):
        self.config = config or RunConfig()
        self._override_platform = platform
        self._override_backend = backend_type
        self._override_strategy = strategy
        self._override_memory_planner = memory_planner
        self._override_enable_pypto_l0c_double_buffer = enable_pypto_l0c_double_buffer
        self._tensor_specs = None
        self._scalar_specs = None

    @abc.abstractmethod
    def get_name(self):
        ...

    @abc.abstractmethod
    def define_tensors(self):
        ...

    @abc.abstractmethod
    def get_program(self):
        ...

    @abc.abstractmethod
    def compute_expected(self, tensors, params=None):
        ...

    def get_strategy(self):
        return self._override_strategy or OptimizationStrategy.Default

    def get_memory_planner(self):
        return self._override_memory_planner

    def get_enable_pypto_l0c_double_buffer(self):
        return self._override_enable_pypto_l0c_double_buffer

    def get_platform(self):
        return self._override_platform

    def get_backend_type(self):
        if self._override_platform is not None:
            return platform_to_backend(self._override_platform)
        return self._override_backend or BackendType.Ascend910B

    def define_scalars(self):
        return []

    @property
    def tensor_specs(self):
        if self._tensor_specs is None:
            self._tensor_specs = self.define_tensors()
        return self._tensor_specs

    @property
    def scalar_specs(self):
        if self._scalar_specs is None:
            self._scalar_specs = self.define_scalars()
        return self._scalar_specs


@dataclasses.dataclass
class CaseResult:
    """What ``TestRunner.run`` returns: ``passed``, and ``error`` when not;
    ``sim_result`` is the simulator's RunResult of a run that happened."""

    __test__ = False

    passed: bool
    test_name: str = None
    error: str = None
    sim_result: typing.Any = None

    def __str__(self):
        return f"{'PASS' if self.passed else 'FAIL'}: {self.test_name}" + (
            f": {self.error}" if self.error else "")


class TestRunner:
    """Runs a PTOTestCase on the simulator: compile for the case's platform
    (else the config's), one simulated chip (``config.device_id``), the tensors
    from their specs in the order of the program's parameters, every output
    compared with ``compute_expected`` at the case's rtol / atol."""

    __test__ = False

    def __init__(self, config=None):
        self.config = config or RunConfig()

    def run(self, case):
        name = case.get_name()
        try:
            return self._run(case, name)
        except (CompileError, RunError, TypeError, ValueError, NotImplementedError) as e:
            return CaseResult(False, name, f"{type(e).__name__}: {e}")

    def _run(self, case, name):
        from pypto import ir  # noqa: PLC0415
        import torch  # noqa: PLC0415
        if case.scalar_specs:
            raise NotImplementedError(
                f"{name}: scalar arguments ({', '.join(s.name for s in case.scalar_specs)}) of "
                "the orchestrator are not supported by the simulator's Python front door")
        platform = case.get_platform() or self.config.platform
        # One chip. The compile and the call are the ones a distributed test
        # makes: a program without a HOST orchestrator runs once the
        # toolchain's single-chip path does (docs/python.md), nothing here
        # changes then.
        compiled = ir.compile(case.get_program(), platform=platform,
                              distributed_config=DistributedConfig(
                                  device_ids=[self.config.device_id]))
        specs = case.tensor_specs
        tensors = {s.name: s.create_tensor() for s in specs}
        expected = {k: v.clone() for k, v in tensors.items()}
        case.compute_expected(expected)
        order = compiled.param_names or [s.name for s in specs]
        missing = [p for p in order if p not in tensors]
        if missing:
            raise TypeError(f"{name}: the program's parameters {missing} have no TensorSpec")
        result = compiled(*[tensors[p] for p in order], config=self.config)
        rtol, atol = case.config.rtol, case.config.atol
        for s in specs:
            if not s.is_output:
                continue
            got, want = tensors[s.name], expected[s.name]
            if not torch.allclose(got.to(torch.float64), want.to(torch.float64),
                                  rtol=rtol, atol=atol):
                diff = (got.to(torch.float64) - want.to(torch.float64)).abs().max().item()
                return CaseResult(False, name, f"output '{s.name}' differs from the expected "
                                  f"values (rtol={rtol}, atol={atol}): max |diff| = {diff}",
                                  result)
        return CaseResult(True, name, None, result)


__all__ = ["ALL_PLATFORM_IDS", "ONBOARD_PLATFORM_IDS", "ONBOARD_PLATFORMS", "PLATFORMS",
           "SIM_PLATFORM_IDS", "SIM_PLATFORMS", "PTOTestCase", "TensorSpec", "ScalarSpec",
           "DataType", "RunConfig", "CaseResult", "TestRunner", "platform_to_backend",
           "is_hardware_available"]
