"""lit_test: FileCheck tests of textual IR, run inside `bazel test`."""

def lit_test(name, srcs, data = [], **kwargs):
    """One sh_test that runs lit over `srcs` (each file needs a RUN line).

    Args:
      name: test name.
      srcs: .pto / .test files in this package.
      data: extra files the RUN lines read.
      **kwargs: passed to sh_test (size, tags, ...).
    """
    native.sh_test(
        name = name,
        srcs = ["//tools/lit:run_lit.sh"],
        args = ["$(rootpath %s)" % s for s in srcs],
        data = srcs + data + [
            "//tools/lit:lit.cfg.py",
            "//tools:pto-opt",
            "//examples:programs",
        ],
        **kwargs
    )
