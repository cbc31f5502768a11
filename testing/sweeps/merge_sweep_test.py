"""merge_sweep.py on shard files written the way Bazel and gtest write them."""
import io
import os
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

import merge_sweep

CASE = ('<testcase name="RunsAndRecordsItsRow/{n}" status="run" result="completed">'
        '<properties>'
        '<property name="collective" value="{c}"/><property name="bytes" value="{b}"/>'
        '<property name="ranks" value="{r}"/><property name="platform" value="{p}"/>'
        '<property name="sim_us" value="{t}"/><property name="algbw_GBps" value="1.5"/>'
        '<property name="busbw_GBps" value="1.25"/></properties>{fail}</testcase>')


def shard(cases):
    return '<?xml version="1.0"?><testsuites><testsuite name="Grid/SweepTest">' + \
        "".join(cases) + "</testsuite></testsuites>"


class MergeSweepTest(unittest.TestCase):
    def write(self, root, i, n, cases):
        d = os.path.join(root, f"shard_{i}_of_{n}")
        os.makedirs(d)
        with open(os.path.join(d, "test.xml"), "w") as f:
            f.write(shard(cases))

    def run_main(self, args):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = merge_sweep.main(["merge_sweep"] + args)
        return code, out.getvalue(), err.getvalue()

    def test_shards_merge_into_one_sorted_table(self):
        with tempfile.TemporaryDirectory() as root:
            self.write(root, 1, 2, [CASE.format(n=1, c="all_to_all", b=65536, r=16, p="a3",
                                                t="12.5", fail="")])
            self.write(root, 2, 2, [CASE.format(n=0, c="all_to_all", b=4096, r=16, p="a3",
                                                t="3.25", fail="")])
            code, out, _ = self.run_main([root])
        self.assertEqual(code, 0)
        lines = out.splitlines()
        self.assertEqual(lines[0], "| collective | platform | ranks | bytes | sim_us | "
                                   "algbw_GBps | busbw_GBps | status |")
        self.assertEqual(lines[2], "| all_to_all | a3 | 16 | 4096 | 3.25 | 1.50 | 1.25 | ok |")
        self.assertEqual(lines[3], "| all_to_all | a3 | 16 | 65536 | 12.50 | 1.50 | 1.25 | ok |")

    def test_a_failed_case_is_listed_and_fails_the_merge(self):
        with tempfile.TemporaryDirectory() as root:
            self.write(root, 1, 1, [CASE.format(n=0, c="broadcast", b=4096, r=8, p="a5_supernode",
                                                t="1", fail='<failure message="x"/>')])
            code, out, _ = self.run_main([root])
        self.assertEqual(code, 1)
        self.assertIn("| broadcast | a5_supernode | 8 | 4096 | 1.00 | 1.50 | 1.25 | FAILED |", out)

    def test_a_missing_shard_is_an_error(self):
        with tempfile.TemporaryDirectory() as root:
            self.write(root, 1, 3, [])
            self.write(root, 2, 3, [])
            code, _, err = self.run_main([root])
        self.assertEqual(code, 1)
        self.assertIn("2 of 3 shard directories", err)


if __name__ == "__main__":
    unittest.main()
