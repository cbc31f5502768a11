#!/usr/bin/env python3
"""Fails when README.md or docs/*.md name something that does not exist.

Checked: Bazel labels (`//pkg:target`, `//pkg/...`), repository paths in
backticks (`sim/aiv/aiv_core.cc`), and `--flags` written after one of our
tools (pto-opt, pto-run, pto-compile, pto-golden) against that tool's --help.
The source tree is found through the runfile of README.md (a symlink into the
workspace), so the check sees the tree the test was built from.

Usage: docs_truth_test.py [--docs=PATH,...] TOOL=HELP_BINARY...
"""
import os
import re
import subprocess
import sys

TOP = ("common/", "compiler/", "docs/", "examples/", "hw/", "platforms/", "runtime/", "sim/",
       "testing/", "third_party/", "tools/", ".ci/")
# A path right after one of these names is that repository's, not ours.
EXTERNAL = r"(simpler|pto-isa|PyPTO|pypto|PTOAS|sgl-kernel-npu|CANN|same|as)[^`]*$"


def workspace_root():
    readme = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"], "README.md")
    return os.path.dirname(os.path.realpath(readme))


def tool_flags(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True)
    return set(re.findall(r"--[a-z][a-z0-9_-]*", out.stdout + out.stderr))


def label_exists(root, pkg, target):
    pkg_dir = os.path.join(root, pkg)
    build = None
    for name in ("BUILD.bazel", "BUILD"):
        if os.path.isfile(os.path.join(pkg_dir, name)):
            build = os.path.join(pkg_dir, name)
    if build is None:
        return False
    if target is None or target in ("all", "*"):
        return True
    if os.path.exists(os.path.join(pkg_dir, target)):
        return True  # a source file
    return named(build_texts(root, pkg), target)


def build_texts(root, pkg):
    """The package's BUILD file and the .bzl files it loads."""
    texts = []
    for name in ("BUILD.bazel", "BUILD"):
        f = os.path.join(root, pkg, name)
        if os.path.isfile(f):
            texts.append(open(f).read())
    for text in list(texts):
        for lbl in re.findall(r'load\("(//[^"]*|:[^"]*)"', text):
            p, _, f = lbl.lstrip("/").partition(":")
            bzl = os.path.join(root, p if lbl.startswith("//") else pkg, f)
            if os.path.isfile(bzl):
                texts.append(open(bzl).read())
    return texts


def named(texts, target):
    """A target whose name a BUILD or macro spells whole or in two parts."""
    for text in texts:
        if '"%s"' % target in text:
            return True
        for lit in re.findall(r'"([A-Za-z0-9_.+-]{3,})"', text):
            if target.endswith(lit) and ('"%s' % target[:-len(lit)]) in text:
                return True
    return False


def path_exists(root, path):
    """A file or directory, or a target or source stem of its package."""
    full = os.path.join(root, path)
    if os.path.exists(full):
        return True
    pkg, base = os.path.split(path.rstrip("/"))
    stem = base.split(".")[0]
    if any(os.path.exists(os.path.join(root, pkg, stem + ext)) for ext in (".cc", ".h", ".sh")):
        return True
    return named(build_texts(root, pkg), stem)


def main():
    root = workspace_root()
    tools = {}
    docs = None
    for arg in sys.argv[1:]:
        name, value = arg.split("=", 1)
        if name == "--docs":  # check these (repository paths) instead
            docs = value.split(",")
            continue
        tools[name] = tool_flags(value)
    if docs is None:
        docs = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(root, "docs"))
                                      if f.endswith(".md"))
    errors = []
    for doc in docs:
        for n, line in enumerate(open(os.path.join(root, doc)), 1):
            where = "%s:%d" % (doc, n)
            for m in re.finditer(r"//((?:[A-Za-z0-9_-]+(?:/[A-Za-z0-9_-]+)*)?)(?::([A-Za-z0-9_.+-]+)|/?\.\.\.)?", line):
                if m.start() > 0 and line[m.start() - 1] in ":/" + "abcdefghijklmnopqrstuvwxyz":
                    continue  # a URL (https://...)
                pkg = m.group(1).rstrip("/")
                if m.group(0).endswith("/...") or m.group(2) is None:
                    if not pkg or not os.path.isdir(os.path.join(root, pkg)):
                        if pkg:
                            errors.append("%s: no package //%s" % (where, pkg))
                    continue
                if not label_exists(root, pkg, m.group(2)):
                    errors.append("%s: no target //%s:%s" % (where, pkg, m.group(2)))
            for m in re.finditer(r"`([^`\s]+)`", line):
                path = m.group(1)
                if not path.startswith(TOP) or re.search(r"[*<>{}$|]|\.\.\.", path):
                    continue
                if re.search(EXTERNAL, line[:m.start()]):
                    continue  # a file of a cited repository (simpler's docs/...)
                path = re.sub(r"(:\d+(-\d+)?)+$", "", path).rstrip(".,;)")
                if not path_exists(root, path):
                    errors.append("%s: no file %s" % (where, path))
            if "unknown flag" in line:
                continue  # quotes the error for a flag that does not exist
            for tool, flags in tools.items():
                for m in re.finditer(re.escape(tool) + r"\b", line):
                    tail = line[m.end():]
                    # The tool's own flags run to the end of the command.
                    tail = re.split(r"[`|;]|&&|\) ", tail)[0]
                    for f in re.findall(r"(?<![\w-])--[a-z][a-z0-9_-]*", tail):
                        if f not in flags:
                            errors.append("%s: %s has no flag %s" % (where, tool, f))
    for e in errors:
        print(e)
    print("%d problem(s) in %d documents" % (len(errors), len(docs)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
