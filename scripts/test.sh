#!/usr/bin/env bash
# The test command (CI runs exactly this): set up, then the whole suite, real-model tests included.
# --fast: the scripted tier only, i.e. the tests no marker puts in another tier (pyproject.toml: real_model,
# server, slow); every other argument goes to pytest as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
FAST_TIER="not real_model and not server and not slow"
args=()
for arg in "$@"; do
  if [[ "$arg" == "--fast" ]]; then args+=(-m "$FAST_TIER"); else args+=("$arg"); fi
done
bash scripts/setup.sh
# One pytest worker per core (ACODE_TEST_WORKERS=1: one process, as before): most tests wait on a child
# process, so two workers on two cores take about half the time. The model's threads follow (tests/conftest.py).
exec "${ACODE_VENV:-.venv}/bin/python" -m pytest -n "${ACODE_TEST_WORKERS:-auto}" ${args[@]+"${args[@]}"}
