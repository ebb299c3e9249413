"""The greedy grammar's module imports nothing the base install lacks (its behaviour against the real model:
tests/integration/test_embedded.py::test_greedy_grammar_checks_one_token_and_decodes_the_same_text)."""

from __future__ import annotations

import subprocess
import sys


def test_the_embedded_backend_imports_neither_llama_cpp_nor_numpy_until_a_model_loads():
    """The base install (a checks-only review, pre-commit) has neither: importing the backend's modules
    must not need them (the greedy grammar's numpy included)."""
    code = ("import sys, acode.llm.embedded, acode.llm.greedy_grammar, acode.review.service\n"
            "print(sorted(m for m in ('numpy', 'llama_cpp') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
