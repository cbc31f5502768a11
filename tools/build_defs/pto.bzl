"""Build rules for PTO programs (docs/ and issue 6 item 3).

pto_program(name, src) compiles a .pto file at build time with
//tools:pto-compile into one C++ translation unit and wraps it in a
cc_library that a backend (e.g. //sim/system) links. The library defines

    absl::Status host_orchestration_entry(pto::rt::Host&,
        const std::map<std::string, pto::rt::ChipCallable>& callables,
        const std::vector<pto::rt::Tensor>& <param>...);
    std::map<std::string, pto::rt::ChipCallable> pto::generated::Callables();

    absl::Status pto::generated::RunHost(pto::rt::Host&,
        const std::vector<std::vector<pto::rt::Tensor>>& params);

(see `pto-compile --help`). The builtin kernels and HOST-rail entries are
rendered into the translation unit, so the library needs no builtin kernel
library, only //runtime/builtins:program_support.
"""

load("@rules_cc//cc:defs.bzl", "cc_library")

_TEMPLATES = [
    "//runtime/builtins/all_to_all_v:entry.cpp.in",
    "//runtime/builtins/all_to_all_v:kernel.cpp.in",
    "//runtime/builtins/all_to_all_v:kernel_config.textproto.in",
    "//runtime/builtins/indexed_all_to_all_v:kernel.cpp.in",
]

def pto_program(name, src, platform = "a2a3", world_size = 0, tags = None, visibility = None, **kwargs):
    """A cc_library `name` with the C++ of the PTO program `src`.

    Args:
      name: the cc_library; the generated source is `name + ".pto.cc"`.
      src: the .pto file.
      platform: the --platform of pto-compile (a2a3 or a5).
      world_size: the --world-size of pto-compile: > 0 compiles a program
        written with pld.world_size() for that many ranks.
      tags: of the genrule and the cc_library (e.g. manual).
      visibility: of the cc_library.
      **kwargs: passed to the cc_library (e.g. testonly).
    """
    gen = name + "_pto_cc"
    native.genrule(
        name = gen,
        srcs = [src] + _TEMPLATES,
        outs = [name + ".pto.cc"],
        cmd = ("$(location //tools:pto-compile) $(location %s) " % src +
               "--platform=%s " % platform +
               ("--world-size=%d " % world_size if world_size else "") +
               "--templates=$$(dirname $$(dirname " +
               "$(location //runtime/builtins/all_to_all_v:kernel.cpp.in))) " +
               "--single-file=$@"),
        tools = ["//tools:pto-compile"],
        tags = tags,
        visibility = ["//visibility:private"],
    )
    cc_library(
        name = name,
        srcs = [":" + gen],
        copts = ["-Werror"],
        deps = ["//runtime/builtins:program_support"],
        tags = tags,
        visibility = visibility,
        **kwargs
    )
