"""``ScalarSpec``: a scalar argument of a test case's orchestrator, by PyPTO's
name (``pypto.runtime.tensor_spec``). The simulator's Python front door does
not pass HOST scalars yet (docs/python.md); a case that defines one is
reported as such by the runner."""
import dataclasses

# The C types a scalar may have (PyPTO's names).
SCALAR_CTYPES = ("int64", "int32", "uint64", "uint32", "float", "double")


@dataclasses.dataclass
class ScalarSpec:
    name: str
    value: object
    ctype: str = "int64"

    def __post_init__(self):
        if self.ctype not in SCALAR_CTYPES:
            raise ValueError(f"Unsupported ctype {self.ctype!r} for scalar {self.name!r}. "
                             f"Supported: {list(SCALAR_CTYPES)}")
