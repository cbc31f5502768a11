"""``MemoryPlanner``: who plans on-chip buffers in PyPTO (its planner, DSA_RP or
ptoas). Accepted for the signatures that name it; our default pipeline plans
memory one way (docs/passes/README.md)."""
import enum


class MemoryPlanner(enum.Enum):
    PYPTO = "PYPTO"
    DSA_RP = "DSA_RP"
    PTOAS = "PTOAS"


__all__ = ["MemoryPlanner"]
