"""``RunConfig`` and the ``@pl.jit`` path: a jit function compiles for the
shapes of its call and runs like a compiled program."""
import dataclasses

from .. import _source
from ..ir.distributed_compiled_program import DistributedCompiledProgram, DistributedConfig


@dataclasses.dataclass
class RunConfig:
    """PyPTO's run configuration. Read here: ``platform``, ``distributed_config``
    (the device count), and ours: ``trace_path`` (write the run's Perfetto
    trace there) and ``timing_only`` (simulate time only; no outputs). The
    other fields are PyPTO's and are accepted for its signatures."""

    platform: str = "a2a3"
    device_id: int = 0
    rtol: float = 1e-5
    atol: float = 1e-5
    strategy: object = None
    backend_type: object = None
    dump_passes: bool = False
    save_kernels: bool = False
    save_kernels_dir: object = None
    codegen_only: bool = False
    distributed_config: object = None
    # PyPTO's profiling and runtime-sizing knobs: accepted, not acted on (the
    # simulator's trace and statistics are always the RunResult's).
    enable_chip_swimlane: object = 0
    enable_dump_args: int = 0
    enable_pmu: int = 0
    enable_dep_gen: bool = False
    enable_scope_stats: bool = False
    compile_profiling: bool = False
    diagnostic_phase: object = None
    disabled_diagnostics: object = None
    golden_data_dir: object = None
    aicpu_thread_num: object = None
    ring_task_window: object = None
    ring_heap: object = None
    ring_dep_pool: object = None
    analyze_auto_scopes_for_deps: bool = False
    memory_planner: object = None
    dump_ptoas_passes: bool = False
    trace_path: object = None
    timing_only: bool = False


_default = RunConfig()


def set_default_config(config):
    """The configuration a ``@pl.jit`` call without ``config=`` uses (the pytest
    plugin sets it from --platform and --device)."""
    global _default
    _default = config


def default_config():
    return _default


def _arg_types(args):
    """{position: (shape, dtype name)} of the call's tensors."""
    from .. import _native  # noqa: PLC0415
    from ..ir.distributed_compiled_program import _as_array  # noqa: PLC0415
    types = {}
    for i, a in enumerate(args):
        if isinstance(a, (int, float, bool)):
            continue
        arr = _as_array(a, i, "jit call")
        dtype = _native.ext.dtype_for_descr(arr.dtype.str)
        if not dtype:
            raise TypeError(f"argument {i}: NumPy type {arr.dtype} has no PTO data type")
        types[i] = (list(arr.shape), dtype)
    return types


def compile_jit(jf, args, config):
    """The compiled program of jit function `jf` for the shapes and dtypes of
    `args`, on the platform and devices of `config` (else the default)."""
    config = config or _default
    dist = config.distributed_config or _default.distributed_config or DistributedConfig()
    types = _arg_types(args)
    key = (config.platform, len(dist.device_ids),
           tuple((i, tuple(s), d) for i, (s, d) in sorted(types.items())))
    if key not in jf._cache:
        jf._cache[key] = DistributedCompiledProgram(_source.Source.of(jf, types),
                                                    config.platform, len(dist.device_ids), config)
    return jf._cache[key]
