#!/usr/bin/env bash
# The test command (CI runs exactly this): set up, then the whole suite, real-model tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec "${ACODE_VENV:-.venv}/bin/python" -m pytest "$@"
