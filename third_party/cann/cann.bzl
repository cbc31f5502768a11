"""@cann: the installed CANN toolkit, for the hw backend (docs/hw.md).

The rule looks for the toolkit through ASCEND_HOME_PATH, then
ASCEND_TOOLKIT_HOME (both set by the toolkit's set_env.sh). Only hw/ targets
built with --config=ascend reach @cann, so a machine without CANN never runs
this rule unless it asks for the hw backend, and then it fails at once with
what to install.
"""

_MISSING = """
The hw backend (--config=ascend) needs the Huawei CANN toolkit, and neither
ASCEND_HOME_PATH nor ASCEND_TOOLKIT_HOME is set.

Install the CANN toolkit (Ascend-cann-toolkit, 8.x, with the driver and
firmware for your Atlas board), then load its environment:

    source /usr/local/Ascend/ascend-toolkit/set_env.sh

and build again. Without a device, build and test without --config=ascend:
the simulator runs everything, and CI compiles hw/ against the declared API
(docs/hw.md).
"""

def _cann_toolkit_impl(rctx):
    home = rctx.os.environ.get("ASCEND_HOME_PATH", "") or rctx.os.environ.get("ASCEND_TOOLKIT_HOME", "")
    if not home:
        fail(_MISSING)
    root = rctx.path(home)
    for need in ["include/acl/acl.h", "include/hccl/hccl.h"]:
        if not root.get_child(need).exists:
            fail("%s/%s is missing: %s is not a CANN toolkit (expected include/acl, " % (home, need, home) +
                 "include/hccl and lib64).\n" + _MISSING)
    rctx.symlink(root.get_child("include"), "include")
    rctx.symlink(root.get_child("lib64"), "lib64")
    rctx.file("BUILD.bazel", """
cc_library(
    name = "cann",
    hdrs = glob(["include/acl/**/*.h", "include/hccl/**/*.h", "include/runtime/**/*.h"]),
    includes = ["include"],
    linkopts = ["-L%s/lib64", "-Wl,-rpath,%s/lib64", "-lascendcl", "-lruntime", "-lhccl"],
    visibility = ["//visibility:public"],
)
""" % (home, home))

cann_toolkit = repository_rule(
    implementation = _cann_toolkit_impl,
    environ = ["ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"],
    local = True,
)
