#!/usr/bin/env bash
# Runs the package's pytest modules under `bazel test` with Debian's
# /usr/bin/python3 (the interpreter python3-numpy / python3-pytest serve,
# docs/python.md), the extension and the package from the runfiles.
set -euo pipefail
root="${TEST_SRCDIR}/pto"
export PYTHONPATH="${root}/python"
# Built programs and program texts stay inside the test's scratch directory.
export PYPTO_CACHE="${TEST_TMPDIR}/pypto-cache"
# Under --config=asan (the nightly `bazel test --config=asan //...`) the
# extension needs the sanitizer runtime loaded before the interpreter, which
# is not instrumented; Python's own allocations are not ours to leak-check.
ext="${root}/python/pypto/_pypto.so"
if ldd "${ext}" | grep -q libasan; then
  export LD_PRELOAD="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libubsan.so)"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+${ASAN_OPTIONS}:}detect_leaks=0"
fi
exec /usr/bin/python3 -m pytest -q -p pypto_sim.pytest_plugin -p no:cacheprovider \
  --rootdir="${root}/python" "${root}/python/tests" "$@"
