#!/usr/bin/env bash
# Installs everything Loom needs to build and test on Debian 12 (bookworm).
# Idempotent: when every package is already installed it touches nothing and
# needs no root, so the other scripts can call it on every run.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  llvm-19-dev clang-19
  libgtest-dev libgmock-dev libbenchmark-dev
  libpng-dev zlib1g-dev libzstd-dev libedit-dev libxml2-dev libffi-dev
  spirv-tools spirv-headers
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  chromium
)
# On x86-64, test_aot links and runs 32-bit x86 AOT libraries
# (test/aot/ThirtyTwoBitAotTest.cpp) against i386 glibc: headers and start
# files, 1.4 MB; and ARM-32 and AArch64 libraries, linked statically with
# Debian's cross compilers and run under qemu-user
# (test/aot/CrossArchAotTest.cpp).
if [[ "$(dpkg --print-architecture 2>/dev/null || true)" == "amd64" ]]; then
  PACKAGES+=(libc6-dev-i386 qemu-user gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
             gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
fi

is_installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" == "installed" ]]
}

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for package in "${PACKAGES[@]}"; do
    is_installed "$package" || missing+=("$package")
  done
else
  echo "setup.sh: dpkg-query not found; this script supports Debian 12 only." >&2
  echo "setup.sh: install the equivalent of: ${PACKAGES[*]}" >&2
  exit 1
fi

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup.sh: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "setup.sh: installing ${missing[*]}"
SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup.sh: not root and sudo is missing; as root run: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  SUDO=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update
"${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
