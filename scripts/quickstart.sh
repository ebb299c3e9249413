#!/usr/bin/env bash
# Fresh machine -> a real review on the embedded default model:
# set up, assemble the bundled model, build a small sample repository with a planted defect on a branch,
# and review that branch with `acode review`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ACODE="$PWD/${ACODE_VENV:-.venv}/bin/acode"
"$ACODE" models pull
sample=$(mktemp -d "${TMPDIR:-/tmp}/acode-sample.XXXXXX")
"$PWD/${ACODE_VENV:-.venv}/bin/python" scripts/make_sample_repo.py "$sample"
echo ">> reviewing branch 'feature' of the sample repository in $sample" >&2
cd "$sample"
set +e
# the sample's tests run on both sides of the change (in the sandbox) with the venv's python and pytest
PATH="$(dirname "$ACODE"):$PATH" "$ACODE" review --base main
code=$?
set -e
echo ">> acode review exited with $code (0 approved, 50 rejected)" >&2
