#!/usr/bin/env bash
# The test command (CI runs exactly this): set up, then the whole suite, real-model tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# One pytest worker per core (ACODE_TEST_WORKERS=1: one process, as before): most tests wait on a child
# process, so two workers on two cores take about half the time. The model's threads follow (tests/conftest.py).
exec "${ACODE_VENV:-.venv}/bin/python" -m pytest -n "${ACODE_TEST_WORKERS:-auto}" "$@"
