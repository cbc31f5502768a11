"""A parameter sweep as one sharded Bazel test (docs/sweeps.md).

collective_sweep generates one cc_test whose cases are the cross product
collectives x sizes x ranks x platforms; Bazel runs it in `shard_count`
shards (gtest splits the cases by TEST_SHARD_INDEX), locally with
`bazel test` or across machines with `--remote_executor`. Each case records
its row as test properties; merge_sweep.py joins the shards' test.xml files
into one table.
"""

load("@rules_cc//cc:defs.bzl", "cc_test")

def collective_sweep(name, collectives, sizes, ranks, platforms, shard_count = 4, size = "small"):
    """A sharded sweep test `name`.

    Args:
      name: the cc_test.
      collectives: of sweep_test.cc ("all_to_all", "broadcast").
      sizes: bytes per peer.
      ranks: world sizes (simulated chips).
      platforms: of //platforms.
      shard_count: Bazel shards.
      size: of the cc_test.
    """
    cc_test(
        name = name,
        size = size,
        srcs = ["sweep_test.cc"],
        shard_count = shard_count,
        env = {
            "SWEEP_COLLECTIVES": ",".join(collectives),
            "SWEEP_SIZES": ",".join([str(s) for s in sizes]),
            "SWEEP_RANKS": ",".join([str(r) for r in ranks]),
            "SWEEP_PLATFORMS": ",".join(platforms),
        },
        deps = [
            "//runtime/device",
            "//sim/system",
            "//sim/system:sc_main_gtest",
            "//sim/system:test_kernels",
            "@system_libs//:absl",
            "@system_libs//:gtest",
        ],
    )
