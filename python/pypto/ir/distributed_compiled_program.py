"""``DistributedConfig`` and the compiled program: a callable that runs the
program on the simulator, one simulated chip per device id."""
import dataclasses
import hashlib
import json
import os
import pathlib

from .. import _native
from .. import _source


@dataclasses.dataclass
class DistributedConfig:
    """Which devices a program runs on: here, one simulated chip per id (the ids
    themselves only count). ``num_sub_workers`` > 0 (HOST sub-workers written
    in Python) is not supported (docs/python.md)."""

    device_ids: list = dataclasses.field(default_factory=lambda: [0])
    num_sub_workers: int = 0
    runtime: str = "tensormap_and_ringbuffer"
    aicpu_thread_num: int = 0


# PyPTO's simulator platform names run on our (timed) model of the same chip.
_PLATFORM_ALIASES = {"a2a3sim": "a2a3", "a5sim": "a5"}


def platform_name(platform):
    return _PLATFORM_ALIASES.get(platform, platform)


class RunResult:
    """What a call of a compiled program returns: the run's report."""

    def __init__(self, program, raw, trace_path):
        self.program = program
        self.sim_time_us = raw["sim_time_ps"] * 1e-6
        self.summary = raw["summary"]
        self.stats_text = raw["stats_text"]
        self.stats = json.loads(raw["stats_json"]) if raw["stats_json"] else {}
        self.trace_path = trace_path
        self.dispatches_per_card = list(raw["dispatches_per_card"])
        self.cache_hit = raw["cache_hit"]
        self.chips = raw["chips"]

    def __repr__(self):
        return (f"<RunResult {self.program} on {self.chips} chips: simulated "
                f"{self.sim_time_us:.3f} us>")


def _as_array(arg, index, name):
    import numpy as np  # noqa: PLC0415
    if isinstance(arg, np.ndarray):
        return arg
    if hasattr(arg, "detach") and hasattr(arg, "numpy"):  # a torch tensor
        if getattr(arg, "is_cuda", False) or str(getattr(arg, "device", "cpu")) != "cpu":
            raise TypeError(f"{name}: argument {index} is a tensor on {arg.device}; the simulator "
                            "reads CPU tensors")
        try:
            return arg.detach().numpy()  # shares the tensor's memory
        except TypeError as e:
            raise TypeError(f"{name}: argument {index} ({arg.dtype}) has no NumPy view: {e}") from e
    raise TypeError(f"{name}: argument {index} is a {type(arg).__name__}; pass NumPy arrays or "
                    "torch tensors")


class DistributedCompiledProgram:
    """The callable ``pypto.ir.compile`` returns. ``compiled(*tensors)`` runs the
    program's HOST orchestrator with the tensors as its parameters, in order;
    every ``pl.Out`` / ``pl.InOut`` tensor is written back into the caller's
    array or tensor. Returns a RunResult."""

    def __init__(self, source, platform, ranks, run_config=None, output_dir=None, entry=""):
        self.source = source  # _source.Source
        self.platform = platform_name(platform)
        self.ranks = ranks
        self.run_config = run_config
        self.entry = entry
        self._compiled = {}
        self._deferred_error = None
        self._subs = {}
        digest = hashlib.sha256(
            f"{source.text}\0{self.platform}\0{ranks}".encode()).hexdigest()[:16]
        if output_dir is None:
            output_dir = pathlib.Path(_native.cache_dir()) / "out" / f"{source.name}-{digest}"
        self.output_dir = pathlib.Path(output_dir)
        # PyPTO's multi-orchestration L2 program (no HOST orchestrator, several
        # CHIP orchestrations): one sub-callable per orchestration, each
        # compiled as pto-run --entry=NAME under next_levels/<name>/.
        if not entry:
            try:
                names = _native.ext.chip_orchestrations(self.source.path)
            except _native.CompileError:
                names = []  # the compile below raises the located error
            if len(names) > 1:
                self.orchestration_names = list(names)
                for n in names:
                    self._subs[n] = DistributedCompiledProgram(
                        source, platform, ranks, run_config,
                        self.output_dir / "next_levels" / n, entry=n)
                return
        # Compile now, bound by the rank count alone, so a program's errors
        # surface here as in PyPTO; a program whose dimensions need the call's
        # shapes compiles at its first call.
        try:
            self._compiled[None] = self._compile(None)
        except _native.CompileError as e:
            if "has no value for this run" not in str(e):
                raise
            self._deferred_error = e

    @property
    def name(self):
        """The program's name, or the orchestration's for a sub-callable."""
        return self.entry or self.source.name

    def __getitem__(self, name):
        subs = self.__dict__.get("_subs") or {}
        if name not in subs:
            raise KeyError(f"{self.source.name} has no orchestration '{name}' (it has: "
                           f"{', '.join(subs) or 'none'})")
        return subs[name]

    def __getattr__(self, name):
        subs = self.__dict__.get("_subs") or {}
        if name in subs:
            return subs[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def param_names(self):
        """The HOST orchestrator's tensor parameters in call order (PyPTO's
        name), or None while the program waits for its first call's shapes."""
        c = self._compiled.get(None)
        return None if c is None else [p["name"] for p in c.params]

    def _compile(self, shapes):
        try:
            c = _native.ext.compile(self.source.path, self.platform, self.ranks,
                                    _native.build_root(),
                                    None if shapes is None else [(d, list(s)) for d, s in shapes],
                                    entry=self.entry)
        except _native.CompileError as e:
            raise _native.CompileError(self.source.located(str(e))) from None
        # The generated files, in the layout of PyPTO's output directory:
        # program.cc and next_levels/<builtin variant>/ (docs/codegen.md).
        c.write_files(str(self.output_dir))
        return c

    def prepare(self, config=None, **kwargs):
        """PyPTO's prepared session, as a context manager whose calls run the
        program as ``compiled(...)`` does. Each call is its own simulation, so
        there is no device state to keep between calls: the runtime-session
        options (``persistent``, ``reset_persistent_windows``, ...) and the
        session's tensor API (``alloc_tensor``, ``submit``) are not provided."""
        if kwargs:
            raise NotImplementedError(
                f"prepare({', '.join(sorted(kwargs))}=...): a persistent runtime session is not "
                "modelled; each call of the Python door is its own simulation (docs/python.md)")
        return _Prepared(self, config)

    def compiled_for(self, arrays):
        shapes = tuple((a.dtype.str, tuple(a.shape)) for a in arrays)
        c = self._compiled.get(None)
        # The data types and the tensor count are the program's: a call that
        # differs in them is checked against it, not compiled again.
        if c is not None and (len(c.params) != len(shapes) or
                              [p["descr"] for p in c.params] != [d for d, _ in shapes] or
                              [tuple(p["shape"]) for p in c.params] == [s for _, s in shapes]):
            return c
        if shapes not in self._compiled:
            self._compiled[shapes] = self._compile(shapes)
        return self._compiled[shapes]

    def __call__(self, *args, config=None):
        from ..runtime.runner import RunConfig  # noqa: PLC0415
        import numpy as np  # noqa: PLC0415
        config = config or self.run_config or RunConfig()
        name = self.source.name
        if self._subs:
            raise TypeError(f"{name} has {len(self._subs)} orchestrations "
                            f"({', '.join(self._subs)}); select one explicitly: "
                            f"compiled[\"{next(iter(self._subs))}\"](...)")
        arrays = [_as_array(a, i, name) for i, a in enumerate(args)]
        c = self.compiled_for(arrays)
        if len(arrays) != len(c.params):
            raise TypeError(f"{name} takes {len(c.params)} tensors "
                            f"({', '.join(p['name'] for p in c.params)}), got {len(arrays)}")
        for a, p in zip(arrays, c.params):
            if a.dtype.str != p["descr"] or tuple(a.shape) != tuple(p["shape"]):
                raise TypeError(f"{name}: '{p['name']}' is {p['descr']} {list(p['shape'])}, the "
                                f"call passes {a.dtype.str} {list(a.shape)}")
            if p["output"] and not a.flags.writeable:
                raise TypeError(f"{name}: '{p['name']}' is an output; the call passes a "
                                "read-only array")
        trace_path = config.trace_path
        raw = _native.ext.run(c, [np.ascontiguousarray(a).tobytes() for a in arrays],
                              cxx=os.environ.get("CXX") or "g++",
                              cache_dir=os.path.join(_native.cache_dir(), "build"),
                              trace=trace_path is not None, timing_only=config.timing_only)
        if trace_path is not None and raw["trace_json"]:
            pathlib.Path(trace_path).write_bytes(raw["trace_json"])
        result = RunResult(c.name, raw, trace_path)
        if raw["error_code"] != 0:
            text = f"{name}: run failed: {raw['error_text']}"
            for b in raw["blocked"]:
                text += f"\n  blocked: {b}"
            raise _native.RunError(text, result)
        for a, p in zip(arrays, c.params):
            if p["output"] and p["name"] in raw["outputs"]:
                out = np.frombuffer(raw["outputs"][p["name"]], dtype=a.dtype).reshape(a.shape)
                np.copyto(a, out)
        self.last_result = result
        return result


class _Prepared:
    """What ``DistributedCompiledProgram.prepare()`` returns."""

    def __init__(self, program, config):
        self._program = program
        self._config = config

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, *args, config=None):
        return self._program(*args, config=config or self._config)
