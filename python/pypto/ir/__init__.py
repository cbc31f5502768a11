"""pypto.ir: ``compile(program, platform=..., distributed_config=...)``."""
from .. import _source
from .distributed_compiled_program import (DistributedCompiledProgram, DistributedConfig,
                                           RunResult)
from .pass_manager import OptimizationStrategy


def compile(program, output_dir=None, strategy=None, *args, platform=None,  # noqa: A001
            distributed_config=None, **kwargs):
    """Compiles a ``@pl.program`` for ``platform`` (default ``a2a3``) and the
    devices of ``distributed_config`` (one simulated chip per id) through our
    default pipeline; returns the callable DistributedCompiledProgram. The
    generated files go to ``output_dir`` (PyPTO's second positional
    parameter), else under the cache directory. ``strategy`` and PyPTO's other
    arguments (``dump_passes``, ``backend_type``, ``skip_ptoas``, ...) are
    accepted; our pipeline is the one default pipeline (docs/passes/README.md)."""
    del strategy, args, kwargs
    config = distributed_config or DistributedConfig()
    if config.num_sub_workers:
        raise NotImplementedError(
            "num_sub_workers > 0 (HOST sub-workers written in Python) is not supported by the "
            "simulator's Python front door (docs/python.md)")
    return DistributedCompiledProgram(_source.Source.of(program), platform or "a2a3",
                                      len(config.device_ids), output_dir=output_dir)


__all__ = ["compile", "DistributedCompiledProgram", "DistributedConfig", "RunResult",
           "OptimizationStrategy"]
