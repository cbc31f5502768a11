"""@pto_isa: the vendored pto-isa headers for CPU simulation (README.md)."""

# pto-isa writes `static_assert(false, ...)` in a primary template that is
# never instantiated, which only C++23 compilers (GCC 13) accept; GCC 12's
# C++20 rejects it at definition. The same check made dependent on the
# template argument keeps its meaning for every compiler.
_PATCHES = [
    (
        "include/pto/cpu/TReduceIdx.hpp",
        "static_assert(false, \"Unsupported element cmp.\");",
        "static_assert(sizeof(DType) == 0, \"Unsupported element cmp.\");",
    ),
]

def _pto_isa_cpu_sim_impl(ctx):
    ctx.extract(ctx.attr.archive)
    for path, old, new in _PATCHES:
        text = ctx.read(path)
        if old not in text:
            fail("pto_isa: %s no longer contains the patched line; re-check _PATCHES" % path)
        ctx.file(path, text.replace(old, new), legacy_utf8 = False)
    ctx.file("BUILD.bazel", ctx.read(ctx.attr.build_file))
    ctx.file("WORKSPACE", "workspace(name = \"pto_isa\")\n")

pto_isa_cpu_sim = repository_rule(
    implementation = _pto_isa_cpu_sim_impl,
    attrs = {
        "archive": attr.label(
            default = Label("//third_party/pto_isa:pto_isa_cpu_sim.tar.xz"),
            allow_single_file = True,
        ),
        "build_file": attr.label(
            default = Label("//third_party/pto_isa:pto_isa.BUILD"),
            allow_single_file = True,
        ),
    },
)
