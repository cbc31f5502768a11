"""One all_to_all_v system test per compiled program (testing/system).

all_to_all_v_system_test renders a rail's .pto template with
//common:render_template, compiles it with pto_program and links it with a
test library compiled once (:system_test_lib or :admission_test_lib),
configured through the test's environment (all_to_all_v_program.h).

shared_all_to_all_v_program compiles one program for rows that differ only
in the platform they simulate (a runtime parameter, A2AV_PLATFORM), and
checks that pto-compile gives every such platform the same C++; the rows
pass it as `program`.
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
        lib = ":system_test_lib",
        platform = "a2a3",
        program = None,
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
      lib: the test library (its TESTs) to link with the program.
      platform: simulated on, and compiled for unless `program` is given (a
        platform of //platforms).
      program: a shared_all_to_all_v_program of the same rail, nr, int8, l
        and s, compiled once for this row and others; None compiles
        `name + "_program"` for this row alone.
      size: of the cc_test.
    """
    if program:
        prog = program
    else:
        prog = name + "_program"
        pto_src = rendered_pto(
            prog,
            "all_to_all_v_%s.pto.in" % rail,
            {"NR": nr, "DTYPE": _dtype(int8), "L": l, "S": s},
        )
        pto_program(name = prog, src = pto_src, platform = platform, testonly = True)
    cc_test(
        name = name,
        size = size,
        env = {
            "A2AV_RAIL": rail,
            "A2AV_KERNEL": kernel,
            "A2AV_NR": str(nr),
            "A2AV_INT8": "1" if int8 else "0",
            "A2AV_L": str(l),
            "A2AV_S": str(s),
            "A2AV_SKEW_MATRIX": "1" if skew_matrix else "0",
            "A2AV_PLATFORM": platform,
        },
        deps = [
            prog if prog.startswith(":") else ":" + prog,
            lib,
            "//sim/system:sc_main_gtest",
        ],
    )

def _dtype(int8):
    return "pl.INT8" if int8 else "pl.FP32"

def shared_all_to_all_v_program(name, rail, nr, int8, platforms, l = 1, s = 1):
    """One compiled program of rail `rail` for rows that differ in platform.

    The program is compiled (C++ compile and all) for platforms[0]. For each
    other platform only pto-compile runs, and `name + "_same_code_test"`
    fails if its C++ differs from platforms[0]'s: a platform that changes the
    generated code needs its own program again.

    Args:
      name: the cc_library (a pto_program) the rows pass as `program`.
      rail: "chip", "host" or "incore".
      nr: ranks (NR).
      int8: INT8 payload, else FP32.
      platforms: the platforms of the rows (the first is compiled for).
      l: core_num of the calls.
      s: signal lanes.
    """
    pto_src = rendered_pto(
        name,
        "all_to_all_v_%s.pto.in" % rail,
        {"NR": nr, "DTYPE": _dtype(int8), "L": l, "S": s},
    )
    pto_program(name = name, src = pto_src, platform = platforms[0], testonly = True)
    sources = [":%s_pto_cc" % name]
    for platform in platforms[1:]:
        other = "%s_for_%s" % (name, platform)

        # Only its generated source is used (by the test below), never
        # compiled: manual keeps the cc_library out of //... builds.
        pto_program(
            name = other,
            src = pto_src,
            platform = platform,
            tags = ["manual"],
            testonly = True,
        )
        sources.append(":%s_pto_cc" % other)
    native.sh_test(
        name = name + "_same_code_test",
        size = "small",
        srcs = ["same_code_test.sh"],
        args = ["$(location %s)" % src for src in sources],
        data = sources,
    )
