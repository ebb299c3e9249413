"""A small fake OpenAI-compatible server for unit tests: http.server in a thread on 127.0.0.1, a random
port, answers queued by the test, every request recorded (path, headers, JSON body)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    path: str | None = None  # only for requests whose path ends with this; None matches any
    status: int = 200
    json: Any = None
    body: str | None = None  # raw body instead of JSON
    sse: list[Any] | None = None  # streamed events (dicts become JSON), then [DONE]
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    json: Any


@dataclass
class FakeOpenAIServer:
    answers: list[Answer] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    # the answer to a request no queued answer matches, chosen from the request itself (None: 404)
    respond: Callable[[Request], Answer | None] | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_GET(self) -> None:
                fake._handle(self)

            def do_POST(self) -> None:
                fake._handle(self)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def add(self, **kwargs: Any) -> FakeOpenAIServer:
        self.answers.append(Answer(**kwargs))
        return self

    def chat_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def _next_answer(self, path: str) -> Answer | None:
        with self._lock:
            for index, answer in enumerate(self.answers):
                if answer.path is None or path.endswith(answer.path):
                    return self.answers.pop(index)
        return None

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = Request(handler.command, handler.path, dict(handler.headers), body)
        self.requests.append(request)
        answer = self._next_answer(handler.path) or (self.respond(request) if self.respond else None)
        if answer is None:
            answer = Answer(status=404, json={"error": {"message": "not found"}})
        if answer.delay:
            time.sleep(answer.delay)
        if answer.sse is not None:
            handler.send_response(answer.status)
            handler.send_header("Content-Type", "text/event-stream")
            handler.send_header("Connection", "close")
            handler.end_headers()
            for event in answer.sse:
                data = event if isinstance(event, str) else json.dumps(event)
                handler.wfile.write(f"data: {data}\n\n".encode())
                handler.wfile.flush()
            handler.wfile.write(b"data: [DONE]\n\n")
            handler.close_connection = True
            return
        payload = (answer.body if answer.body is not None else json.dumps(answer.json)).encode()
        handler.send_response(answer.status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        for name, value in answer.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(payload)
