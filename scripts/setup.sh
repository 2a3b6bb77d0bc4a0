#!/usr/bin/env bash
# Installs what building and testing need, only what is missing, on
# Debian/Ubuntu (apt-get as root, or through sudo), then the npm packages.
# Safe to run again: a complete machine installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
have_command() { command -v "$1" >/dev/null 2>&1; }
have_file() { [ -e "$1" ]; }

have_command cmake || missing+=(cmake)
have_command make || missing+=(make)
have_command g++ || missing+=(g++)
have_command clang-format || missing+=(clang-format)
have_file /usr/include/eigen3/Eigen/Core || missing+=(libeigen3-dev)
have_file /usr/include/catch2/catch.hpp || missing+=(catch2)
have_file /usr/include/nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
have_command em++ || missing+=(emscripten)
have_command git || missing+=(git)
have_file /usr/bin/chromium || missing+=(chromium)  # browser tests (playwright-core drives it)
# A CJK font, so that the browser tests' screenshots show Chinese tokens.
have_file /usr/share/fonts/truetype/wqy/wqy-microhei.ttc || missing+=(fonts-wqy-microhei)
# PyTorch in Debian's python3 (python3-torch, 1.13 on Debian 12), so that
# tests/node/train_resume.test.mjs has torch itself load a written resume
# checkpoint as train_pretrain.py does, instead of skipping it. The largest
# install here: with its dependencies about 180 packages, some 140 MiB to
# download and 630 MiB on disk (docs/testing.md).
/usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || missing+=(python3-torch)

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    apt_get=(apt-get)
  elif have_command sudo; then
    apt_get=(sudo apt-get)
  else
    echo "setup: missing ${missing[*]}; run as root: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${apt_get[@]}" -o DPkg::Lock::Timeout=600 update -qq
  "${apt_get[@]}" -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm ci when node_modules is missing or older than the lockfile.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi
