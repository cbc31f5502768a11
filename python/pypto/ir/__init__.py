"""pypto.ir: ``compile(program, platform=..., distributed_config=...)``."""
from .. import _source
from .distributed_compiled_program import (DistributedCompiledProgram, DistributedConfig,
                                           RunResult)
from .pass_manager import OptimizationStrategy


def compile(program, platform="a2a3", distributed_config=None, strategy=None, **kwargs):  # noqa: A001
    """Compiles a ``@pl.program`` for ``platform`` and the devices of
    ``distributed_config`` (one simulated chip per id) through our default
    pipeline; returns the callable DistributedCompiledProgram. ``strategy``
    and PyPTO's other keyword arguments are accepted; our pipeline is the one
    default pipeline (docs/passes/README.md)."""
    del strategy, kwargs
    config = distributed_config or DistributedConfig()
    if config.num_sub_workers:
        raise NotImplementedError(
            "num_sub_workers > 0 (HOST sub-workers written in Python) is not supported by the "
            "simulator's Python front door (docs/python.md)")
    return DistributedCompiledProgram(_source.Source.of(program), platform, len(config.device_ids))


__all__ = ["compile", "DistributedCompiledProgram", "DistributedConfig", "RunResult",
           "OptimizationStrategy"]
