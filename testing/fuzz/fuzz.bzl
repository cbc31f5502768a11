"""pto_fuzz_target: one libFuzzer target, its replay binary and regression test."""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")

def pto_fuzz_target(name, srcs, deps = [], data = [], size = "small"):
    """Defines the fuzz target `name` and the test `name`_regression.

    `data` are runfiles the target reads. `name` is a libFuzzer binary
    under --config=fuzz (clang, docs/fuzzing.md) and a replay binary (replay_main.cc) otherwise. `name`_regression replays
    corpus/`name`/ (the seeds) and crashes/`name`/ (every input that ever
    crashed the target) with the normal toolchain.
    """
    cc_library(
        name = name + "_lib",
        testonly = True,
        srcs = srcs,
        deps = deps,
        alwayslink = True,
    )
    cc_binary(
        name = name,
        testonly = True,
        data = data,
        deps = [":" + name + "_lib"] + select({
            ":libfuzzer": [],
            "//conditions:default": [":replay_main"],
        }),
        linkopts = select({
            ":libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
    )
    corpus = native.glob(["corpus/%s/**" % name])
    crashes = native.glob(["crashes/%s/**" % name])
    dirs = ["corpus/" + name]
    if crashes:
        dirs.append("crashes/" + name)
    cc_test(
        name = name + "_regression",
        size = size,
        deps = [":" + name + "_lib", ":replay_main"],
        data = data + corpus + crashes,
        args = [native.package_name() + "/" + d for d in dirs],
    )
