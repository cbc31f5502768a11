"""Recorded sim goldens of programs, compared in CI (testing/golden/README.md).

sim_golden_test(name, program, platform, ranks) runs `program` with
//tools:pto-run (pattern inputs) recording a golden, and compares it with
data/<name>.textproto (and its .npy files) with //tools:pto-golden. With
PTO_GOLDEN_UPDATE set to the workspace root (tools/update_goldens.sh) it
writes the recorded golden there instead.
"""

def sim_golden_test(name, program, platform, ranks, size = "small"):
    """A golden test of `program` on `ranks` simulated chips of `platform`.

    Args:
      name: the sh_test; its golden is data/<name>.textproto.
      program: a .pto file label.
      platform: a2a3 or a5.
      ranks: the world size.
      size: of the sh_test.
    """
    native.sh_test(
        name = name,
        size = size,
        srcs = ["//testing/golden:sim_golden_test.sh"],
        args = [
            "$(location //tools:pto-run)",
            "$(location //tools:pto-golden)",
            "$(rootpath %s)" % program,
            platform,
            str(ranks),
            "testing/golden/data/%s.textproto" % name,
        ],
        data = [
            program,
            "//tools:pto-golden",
            "//tools:pto-run",
        ] + native.glob([name + ".textproto", name + ".*.npy"]),
        tags = ["golden"],
    )
