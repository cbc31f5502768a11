"""Loads the extension module and finds the files a run builds against.

The extension (python/ext/pypto_module.cc, Bazel target //python:pypto/_pypto.so)
is imported with RTLD_GLOBAL: the generated programs it builds and dlopen()s
resolve the runtime and simulator symbols against it, as pto-run's -rdynamic
does for pto-run.
"""
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
# python/pypto -> the workspace root (a source checkout).
_WORKSPACE = os.path.dirname(os.path.dirname(_HERE))


def _candidates():
    env = os.environ.get("PYPTO_EXTENSION")
    if env:
        yield env
    yield os.path.join(_HERE, "_pypto.so")  # a runfiles tree: beside this file
    yield os.path.join(_WORKSPACE, "bazel-bin", "python", "pypto", "_pypto.so")


def _find_extension():
    for path in _candidates():
        if os.path.isfile(path):
            return path
    raise ImportError(
        "pypto: the extension module _pypto.so is not built; run "
        "`bazel build //python:pypto/_pypto.so` in the checkout (docs/python.md)")


def _load(path):
    flags = sys.getdlopenflags()
    sys.setdlopenflags(os.RTLD_NOW | os.RTLD_GLOBAL)
    try:
        loader = importlib.machinery.ExtensionFileLoader("pypto._pypto", path)
        spec = importlib.util.spec_from_file_location("pypto._pypto", path, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    finally:
        sys.setdlopenflags(flags)
    sys.modules["pypto._pypto"] = module
    return module


EXTENSION_PATH = _find_extension()
ext = _load(EXTENSION_PATH)
CompileError = ext.CompileError


class RunError(RuntimeError):
    """A run that the simulator ended with an error; ``result`` has its report."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result


def _is_root(path):
    return (os.path.isfile(os.path.join(path, "runtime", "api", "host.h")) and
            os.path.isfile(os.path.join(path, "tools", "pto_run_prelude.stamp")))


def build_root():
    """The runfiles root holding the runtime headers, templates and prelude."""
    candidates = [os.environ.get("PYPTO_RUNFILES", "")]
    for env in ("RUNFILES_DIR", "TEST_SRCDIR"):
        if os.environ.get(env):
            candidates.append(os.path.join(os.environ[env], "pto"))
    candidates.append(EXTENSION_PATH + ".runfiles/pto")
    for c in candidates:
        if c and _is_root(c):
            return os.path.abspath(c)
    raise RuntimeError("pypto: cannot find the runtime headers and the prelude beside "
                       f"{EXTENSION_PATH} (rebuild //python:pypto/_pypto.so)")


def cache_dir():
    """Where built programs and program texts are kept: $PYPTO_CACHE, else
    $XDG_CACHE_HOME/pypto-sim, else ~/.cache/pypto-sim."""
    if os.environ.get("PYPTO_CACHE"):
        return os.environ["PYPTO_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pypto-sim")
