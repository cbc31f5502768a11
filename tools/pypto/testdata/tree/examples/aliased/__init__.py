"""A package that registers its numbered modules under short names, as
PyPTO's examples/models does: `from examples.aliased.kern import add_one`."""

import importlib
import sys

_ALIASES = {"kern": "01_kern"}

for _alias, _numbered in _ALIASES.items():
    _mod = importlib.import_module(f".{_numbered}", __package__)
    globals()[_alias] = _mod
    sys.modules[f"{__package__}.{_alias}"] = _mod
