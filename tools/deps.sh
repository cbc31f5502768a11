#!/usr/bin/env bash
# Installs the Debian packages the build and tests need, when any is missing.
# Idempotent and quick when everything is present. Sourced by run_examples.sh
# and test.sh; docs/architecture.md ("Building offline") says why these packages.
PTO_DEBIAN_PACKAGES=(
  bazel-bootstrap
  bazel-rules-java
  g++
  libsystemc-dev
  libabsl-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  libprotobuf-dev
  protobuf-compiler
  llvm-14-tools
  python3
  # The `pypto` Python package (docs/python.md): the extension's headers, and
  # NumPy and pytest for /usr/bin/python3, the interpreter its tests use.
  python3-dev
  pybind11-dev
  python3-numpy
  python3-pytest
  # //tools/lint:function_size_test reads function extents with Universal Ctags.
  universal-ctags
)

# torch for the Python door's tests in PyPTO's idiom (docs/python.md): Debian's
# 1.13 CPU build. Installed without recommends: measured on Debian 12, 174
# packages, about 580 MiB installed, 67 s to download and install.
PTO_TORCH_PACKAGES=(
  python3-torch
)

# Only testing/fuzz/run_fuzzers.sh needs these (docs/fuzzing.md): clang and
# its libFuzzer/sanitizer runtimes.
PTO_FUZZ_PACKAGES=(
  clang-14
  libclang-rt-14-dev
)

# Installs the named Debian packages that are missing; a first argument
# --no-install-recommends is passed to apt-get.
pto_install_packages() {
  local apt_opts=()
  if [[ "${1:-}" == --no-install-recommends ]]; then
    apt_opts=("$1")
    shift
  fi
  local missing=()
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  echo "installing Debian packages: ${missing[*]}" >&2
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq || return 1
  "${sudo[@]}" apt-get install -y -qq "${apt_opts[@]}" "${missing[@]}" >/dev/null || return 1
}

pto_install_deps() {
  pto_install_packages "${PTO_DEBIAN_PACKAGES[@]}" &&
    pto_install_packages --no-install-recommends "${PTO_TORCH_PACKAGES[@]}"
}

pto_install_deps
