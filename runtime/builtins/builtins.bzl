"""Build-time renderings of a builtin collective's kernel template (spec §4.11)."""

load("@rules_cc//cc:defs.bzl", "cc_library")

# The dtype variants of the managed rails (§2.6) and their {{dtype_cpp}}.
DTYPE_VARIANTS = [
    ("fp32", "float"),
    ("int8", "int8_t"),
]

def kernel_renderings(int8_namespace):
    """kernel.cpp.in of this package rendered per dtype variant.

    Defines, per variant v: the genrule render_kernel_<v> (kernel_<v>.cc),
    the cc_library kernel_<v> (alwayslink, for tests that link the kernel
    directly), and the sh_test kernel_template_test that checks the template
    uses only {{dtype_cpp}} and each rendering is exactly that replacement.

    Args:
      int8_namespace: the C++ namespace the int8 rendering must open.
    """
    for variant, dtype_cpp in DTYPE_VARIANTS:
        native.genrule(
            name = "render_kernel_" + variant,
            srcs = ["kernel.cpp.in"],
            outs = ["kernel_" + variant + ".cc"],
            cmd = "$(location //common:render_template) $< $@ dtype_cpp=" + dtype_cpp,
            tools = ["//common:render_template"],
        )
        cc_library(
            name = "kernel_" + variant,
            srcs = ["kernel_" + variant + ".cc"],
            deps = ["//runtime/device"],
            alwayslink = True,
        )
    native.sh_test(
        name = "kernel_template_test",
        size = "small",
        srcs = ["//runtime/builtins:kernel_template_test.sh"],
        args = [
            "$(location kernel.cpp.in)",
            "$(location kernel_fp32.cc)",
            "$(location kernel_int8.cc)",
            int8_namespace,
        ],
        data = [
            "kernel.cpp.in",
            "kernel_fp32.cc",
            "kernel_int8.cc",
        ],
    )

# Who may read a builtin package's templates: the compiler renders them,
# the tools ship them with pto-run, tests check them.
BUILTIN_VISIBILITY = [
    "//compiler:__subpackages__",
    "//examples:__subpackages__",
    "//runtime:__subpackages__",
    "//testing:__subpackages__",
    "//tools:__subpackages__",
]

def host_rail_templates():
    """The filegroup `templates` of a HOST-rail builtin package.

    A package holds its kernel template only: the HOST codegen renders it
    per variant with the entry and kernel config of runtime/builtins/host_rail
    (docs/collectives.md).
    """
    native.filegroup(
        name = "templates",
        srcs = ["kernel.cpp.in"],
    )
