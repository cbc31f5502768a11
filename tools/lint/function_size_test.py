#!/usr/bin/env python3
"""Fails when a C++ function of the project is longer than the limit.

The style rule (docs/architecture.md, "Code size"): a function near 150 lines
is split by responsibility. Function extents come from Universal Ctags
(`--fields=+ne`: start and end line of every function definition), which
parses C++ well enough to find bodies, macros such as TEST() included.

The source tree is found through the runfile of README.md (a symlink into the
workspace). The test is tagged `external`, so Bazel runs it every time rather
than serving a cached pass for a tree that has changed since.

Usage: function_size_test.py [--limit=N] [FILE...]
  Without FILEs, every .cc, .h, .cpp and .in file of the workspace except
  third_party/ and bazel-* is checked.
"""
import os
import shutil
import subprocess
import sys

LIMIT = 150
SUFFIXES = (".cc", ".h", ".cpp", ".cpp.in", ".h.in", ".cc.in")
SKIP_DIRS = ("third_party", ".git")


def workspace_root():
    readme = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"], "README.md")
    return os.path.dirname(os.path.realpath(readme))


def source_files(root):
    files = []
    for d, dirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        if rel == os.path.join("tools", "lint", "testdata"):
            continue  # the self-test's deliberate long function
        dirs[:] = sorted(x for x in dirs
                         if not x.startswith("bazel-") and not (rel == "." and x in SKIP_DIRS))
        files += [os.path.join(rel, n) for n in sorted(names) if n.endswith(SUFFIXES)]
    return files


def ctags_binary():
    for name in ("ctags-universal", "universal-ctags", "ctags"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("function_size_test: Universal Ctags is not installed (Debian: universal-ctags; "
             "tools/deps.sh installs it)")


def long_functions(root, files, limit):
    out = subprocess.run(
        [ctags_binary(), "--language-force=C++", "--kinds-C++=f", "--fields=+ne", "-x",
         "--_xformat=%{end}\t%n\t%F\t%N", "-L", "-"],
        input="\n".join(files), capture_output=True, text=True, cwd=root, check=True)
    found = []
    for line in out.stdout.splitlines():
        end, start, path, name = line.split("\t", 3)
        if not end.isdigit():
            continue
        n = int(end) - int(start) + 1
        if n > limit:
            found.append((n, path, int(start), name))
    return sorted(found, key=lambda f: (-f[0], f[1], f[2]))


def main(argv):
    limit = LIMIT
    files = []
    for a in argv[1:]:
        if a.startswith("--limit="):
            limit = int(a.split("=", 1)[1])
        else:
            files.append(a)
    root = os.getcwd() if files else workspace_root()
    if not files:
        files = source_files(root)
    found = long_functions(root, files, limit)
    for n, path, start, name in found:
        print(f"{path}:{start}: {name} is {n} lines (limit {limit}): split it by responsibility")
    print(f"{len(files)} files, {len(found)} functions over {limit} lines")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
