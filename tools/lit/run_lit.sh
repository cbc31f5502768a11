#!/usr/bin/env bash
# Runs the lit tests given as workspace-relative paths (see lit.bzl).
set -euo pipefail
lit_py=/usr/lib/llvm-14/build/utils/lit/lit.py
if [[ ! -f "$lit_py" || ! -x /usr/lib/llvm-14/bin/FileCheck ]]; then
  echo "lit/FileCheck not found: install the Debian package llvm-14-tools" >&2
  exit 1
fi
root="$PWD"
suite="${TEST_TMPDIR:-$(mktemp -d)}/lit-suite"
rm -rf "$suite"
mkdir -p "$suite"
cp "$root/tools/lit/lit.cfg.py" "$suite/"
for f in "$@"; do
  mkdir -p "$suite/$(dirname "$f")"
  cp "$root/$f" "$suite/$f"
done
export PTO_TOOLS_DIR="$root/tools"
export PTO_EXAMPLES_DIR="$root/examples"
exec python3 "$lit_py" -v "$suite"
