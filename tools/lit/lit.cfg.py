# lit configuration for textual IR tests (MLIR-style: RUN lines call pto-opt and
# FileCheck). run_lit.sh copies the tests of one Bazel target next to this file
# and points PTO_TOOLS_DIR at the built tools.
import os

import lit.formats

config.name = "PTO"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".pto", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "lit-exec")

tools_dir = os.environ["PTO_TOOLS_DIR"]
llvm_bin = "/usr/lib/llvm-14/bin"
config.environment["PATH"] = os.pathsep.join(
    [tools_dir, llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.substitutions.append(("%pto-opt", os.path.join(tools_dir, "pto-opt")))
config.substitutions.append(("%examples", os.environ["PTO_EXAMPLES_DIR"]))
# `not` ships with llvm-14-tools too; FileCheck is found through PATH.
