"""``OptimizationStrategy``: accepted for PyPTO's signatures; our toolchain has
one default pipeline (docs/passes/README.md)."""
import enum


class OptimizationStrategy(enum.Enum):
    Default = "Default"
