#!/usr/bin/env bash
# npm start: sets up what is missing, builds, and shows lesson 11's lab
# record for lab-a computed by the core.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh native >/dev/null
./build/native/core/minimind-lab "${1:-lab-a}" "${2:-0}"
