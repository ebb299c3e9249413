"""Start llama-cpp-python's own OpenAI-compatible server (``python -m llama_cpp.server``, extra
``llama-cpp-python[server]``) on 127.0.0.1 for tests and benchmarks, and stop it with its whole process
group. Any real deployment runs its server itself; this only exists so the ``openai`` backend can be
exercised against a real server on one machine."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Self

from acode.errors import ServerError


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServer:
    """``with LlamaServer(gguf) as server: server.base_url`` -> ``http://127.0.0.1:<port>/v1``."""

    def __init__(
        self,
        model_path: Path,
        *,
        chat_format: str | None = None,
        n_ctx: int = 4096,
        threads: int | None = None,
        log_file: Path | None = None,
        start_timeout: float = 180.0,
        logits_all: bool = False,
    ):
        self.model_path = Path(model_path)
        self.chat_format = chat_format
        self.n_ctx = n_ctx
        self.threads = threads or os.cpu_count() or 1
        self.log_file = log_file or Path(os.devnull)
        self.start_timeout = start_timeout
        # the server's own default (True) computes vocabulary logits for every prompt token; only
        # logprobs need that, and the embedded backend does not pay for it either
        self.logits_all = logits_all
        self.port = 0
        self._process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        command = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model_path),
            "--host", "127.0.0.1",
            "--port", str(self.port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.threads),
            "--n_threads_batch", str(self.threads),
            "--logits_all", str(self.logits_all),
        ]  # fmt: skip
        if self.chat_format:
            command += ["--chat_format", self.chat_format]
        return command

    def start(self) -> Self:
        self.port = free_port()
        log = open(self.log_file, "ab")  # noqa: SIM115 - handed to the child, closed in stop()
        self._log = log
        env = dict(os.environ)
        # the server decodes from a pool of worker threads, each with its own OpenMP team; spinning idle
        # teams starve the working one on a small machine (measured on 2 cores, 0.5B: 1.3 -> 16 tokens/s)
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        self._process = subprocess.Popen(
            self.command(),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
        )
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                self.stop()
                raise ServerError(
                    "ACODE-MODEL-120",
                    f"llama_cpp.server exited with code {self._process.returncode} while starting",
                    hint=f"see its log {self.log_file}; it needs `pip install 'llama-cpp-python[server]'`",
                )
            if self._ready():
                return self
            time.sleep(0.5)
        self.stop()
        raise ServerError(
            "ACODE-MODEL-121",
            f"llama_cpp.server did not answer on {self.base_url} within {self.start_timeout:g} s",
            hint=f"see its log {self.log_file}",
        )

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response:
                return "data" in json.loads(response.read())
        except (OSError, urllib.error.URLError, ValueError):
            return False

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=15)
            except ProcessLookupError:
                pass
        if getattr(self, "_log", None):
            self._log.close()
            self._log = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
