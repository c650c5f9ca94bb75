#!/usr/bin/env bash
# Installs the Debian packages tfprof-analyze builds against. Idempotent: a
# second run installs nothing and takes a second or two.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libprotobuf-dev protobuf-compiler
  libabsl-dev libcli11-dev libfmt-dev nlohmann-json3-dev catch2
  zlib1g-dev libsimdjson-dev libisal-dev
  libre2-dev nettle-dev
  clang-format python3
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

# The browser the HTML report's test opens pages in (ctest report_browser):
# wanted, not needed. When it cannot be installed the build goes on and
# that test is skipped.
install_browser() {
  command -v chromium >/dev/null && return 0
  echo "setup: installing chromium (for the HTML report's browser test; optional)"
  $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
    echo "setup: warning: chromium could not be installed; ctest report_browser will be skipped" >&2
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all build dependencies present"
  install_browser
  exit 0
fi

echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_browser
