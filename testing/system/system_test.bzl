"""One all_to_all_v system test per compiled program (testing/system).

all_to_all_v_system_test renders a rail's .pto template with
//common:render_template, compiles it with pto_program and links it into
all_to_all_v_system_test.cc, configured by macros (see that file).
"""

load("@rules_cc//cc:defs.bzl", "cc_test")
load("//tools/build_defs:pto.bzl", "pto_program")

def rendered_pto(name, template, vars):
    """Renders `template` with `vars` (a dict) into `name`.pto."""
    native.genrule(
        name = name + "_render",
        srcs = [template],
        outs = [name + ".pto"],
        cmd = "$(location //common:render_template) $< $@ " +
              " ".join(["%s=%s" % (k, v) for k, v in sorted(vars.items())]),
        tools = ["//common:render_template"],
        testonly = True,
    )
    return name + ".pto"

def all_to_all_v_system_test(
        name,
        rail,
        nr,
        int8,
        kernel = "",
        l = 1,
        s = 1,
        skew_matrix = True,
        src = "all_to_all_v_system_test.cc",
        size = "small"):
    """A program of rail `rail` with NR = `nr` and its system test `name`.

    Args:
      name: the cc_test; its program is `name + "_program"`.
      rail: "chip", "host" or "incore" (the template all_to_all_v_<rail>.pto.in).
      nr: ranks (NR) and simulated chips.
      int8: INT8 payload, else FP32.
      kernel: the task name of the collective's kernel (A2AV_KERNEL).
      l: core_num of the calls (CHIP and HOST rails; the InCore program
        always passes 1).
      s: signal lanes.
      skew_matrix: the first call runs every skew case, else over_capacity.
      src: the test source; it includes all_to_all_v_program.h.
      size: of the cc_test.
    """
    dtype = "pl.INT8" if int8 else "pl.FP32"
    prog = name + "_program"
    pto_src = rendered_pto(
        prog,
        "all_to_all_v_%s.pto.in" % rail,
        {"NR": nr, "DTYPE": dtype, "L": l, "S": s},
    )
    pto_program(name = prog, src = pto_src, testonly = True)
    cc_test(
        name = name,
        size = size,
        srcs = [src, "all_to_all_v_program.h"],
        local_defines = [
            "A2AV_RAIL=\\\"%s\\\"" % rail,
            "A2AV_KERNEL=\\\"%s\\\"" % kernel,
            "A2AV_NR=%d" % nr,
            "A2AV_INT8=%d" % (1 if int8 else 0),
            "A2AV_L=%d" % l,
            "A2AV_S=%d" % s,
            "A2AV_SKEW_MATRIX=%d" % (1 if skew_matrix else 0),
        ],
        deps = [
            ":" + prog,
            "//common:launch_width",
            "//runtime/api",
            "//sim/system",
            "//sim/system:sc_main_gtest",
            "//sim/system:test_kernels",
            "//sim/trace:report_cc_proto",
            "//testing/reference",
            "//testing/reference:all_to_all_v_cases",
            "@system_libs//:absl",
            "@system_libs//:gmock",
            "@system_libs//:gtest",
        ],
    )
