#!/usr/bin/env bash
# Installs the Debian packages tfprof-analyze builds against. Idempotent: a
# second run installs nothing and takes a second or two.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libprotobuf-dev protobuf-compiler
  libabsl-dev libcli11-dev libfmt-dev nlohmann-json3-dev catch2
  zlib1g-dev libsimdjson-dev libisal-dev
  libre2-dev libssl-dev
  clang-format python3
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all build dependencies present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
