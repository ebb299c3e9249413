"""HTTP to an OpenAI-compatible server: JSON posts and SSE streams, retries with backoff on connection
errors and 5xx, waiting (with a visible line) while a busy server says 429/503, and errors a person can
act on. The API key goes into one header and nowhere else."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from acode.errors import ModelTimeoutError, ServerError

log = logging.getLogger("acode.llm.openai")

SERVER_HINT = (
    "check that the server (Ollama, vLLM, llama.cpp server, LM Studio) is running and listening there, "
    "and that model.base_url is right"
)
MAX_BACKOFF_SECONDS = 8.0
# a server with a full queue (vLLM, Ollama's OLLAMA_MAX_QUEUE, a proxy) answers 429 or 503: many CI jobs
# on one server is the normal case, so acode waits for as long as the request's own time limit allows
BUSY_STATUSES = (429, 503)
MAX_BUSY_WAIT_SECONDS = 30.0


class ServerHTTPError(ServerError):
    """The server answered with an HTTP error status; ``status`` and ``body`` let callers adapt."""

    def __init__(self, code: str, message: str, *, status: int, body: str, hint: str | None = None,
                 retry_after: float | None = None):
        super().__init__(code, message, hint=hint)
        self.status = status
        self.body = body
        self.retry_after = retry_after

    @property
    def busy(self) -> bool:
        return self.status in BUSY_STATUSES


class ServerClient:
    """One server: ``base_url`` like ``http://127.0.0.1:11434/v1``."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key_env: str,
        timeout: float,
        retries: int,
        backoff_base: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.retries = retries
        self.backoff_base = backoff_base
        self._sleep = sleep

    @property
    def root_url(self) -> str:
        """The server root without a trailing ``/v1`` (where llama.cpp keeps /tokenize)."""
        return self.base_url.removesuffix("/v1")

    def _api_key(self) -> str:
        return os.environ.get(self.api_key_env, "")

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = self._api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def scrub(self, text: str) -> str:
        """Text safe to show or log: the API key (if a server echoes it) and known secret shapes removed."""
        from acode.secrets import redact

        key = self._api_key()
        if key:
            text = text.replace(key, "***")
        return redact(text)

    def _httpx_timeout(self, seconds: float) -> Any:
        import httpx

        return httpx.Timeout(seconds, connect=min(seconds, 10.0))

    # --- requests --------------------------------------------------------------------------------------

    def post_json(
        self, path: str, payload: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        """POST and decode the JSON answer, retrying connection errors and 5xx."""
        url = self._url(path)
        seconds = timeout or self.timeout

        def attempt() -> dict[str, Any]:
            import httpx

            with httpx.Client(timeout=self._httpx_timeout(seconds)) as http:
                response = http.post(url, json=payload, headers=self._headers())
            self._raise_for_status(url, response.status_code, response.text,
                                   response.headers.get("retry-after"))
            return self._decode(url, response.text)

        return self._with_retries(url, seconds, attempt)

    def request_once(
        self, method: str, url_or_path: str, payload: dict[str, Any] | None = None, *, timeout: float = 10.0
    ) -> dict[str, Any]:
        """One request, no retries: for optional endpoints and look-ups that only improve a message."""
        import httpx

        url = url_or_path if "://" in url_or_path else self._url(url_or_path)
        try:
            with httpx.Client(timeout=self._httpx_timeout(timeout)) as http:
                response = http.request(method, url, json=payload, headers=self._headers())
        except httpx.HTTPError as exc:
            raise self._unreachable(url, exc, attempts=1) from None
        self._raise_for_status(url, response.status_code, response.text)
        return self._decode(url, response.text)

    def stream_events(
        self, path: str, payload: dict[str, Any], *, timeout: float | None = None
    ) -> Iterator[dict[str, Any]]:
        """POST with ``stream: true`` and yield each SSE ``data:`` event as decoded JSON.

        Connection errors and 5xx are retried only before the first event arrives; after that a
        failure is raised, since part of the answer has already been handed on."""
        import httpx

        url = self._url(path)
        seconds = timeout or self.timeout
        deadline = time.monotonic() + seconds
        retries = _Retries(self, deadline)
        while True:
            started = False
            try:
                with (
                    httpx.Client(timeout=self._httpx_timeout(seconds)) as http,
                    http.stream("POST", url, json=payload, headers=self._headers()) as response,
                ):
                    if response.status_code >= 400:
                        response.read()
                        self._raise_for_status(url, response.status_code, response.text,
                                               response.headers.get("retry-after"))
                    for line in response.iter_lines():
                        if time.monotonic() > deadline:
                            raise self._timed_out(url, seconds)
                        data = _sse_data(line)
                        if data is None:
                            continue
                        if data == "[DONE]":
                            return
                        started = True
                        yield self._decode(url, data)
                return
            except httpx.TimeoutException as exc:
                if isinstance(exc, httpx.ConnectTimeout) and not started:
                    failure: Exception = self._unreachable(url, exc, attempts=retries.attempts)
                else:
                    raise self._timed_out(url, seconds) from None
            except httpx.TransportError as exc:
                if started:
                    raise ServerError(
                        "ACODE-MODEL-108",
                        f"the connection to {url} broke in the middle of a streamed answer: {exc}",
                        hint=SERVER_HINT,
                    ) from None
                failure = self._unreachable(url, exc, attempts=retries.attempts)
            except ServerHTTPError as exc:
                if exc.status < 500 and not exc.busy:
                    raise
                failure = exc
            retries.wait_or_raise(failure)

    # --- retry and error mapping -----------------------------------------------------------------------

    def _with_retries(
        self, url: str, seconds: float, attempt: Callable[[], dict[str, Any]]
    ) -> dict[str, Any]:
        import httpx

        retries = _Retries(self, time.monotonic() + seconds)
        while True:
            try:
                return attempt()
            except httpx.TimeoutException as exc:
                if not isinstance(exc, httpx.ConnectTimeout):
                    raise self._timed_out(url, seconds) from None
                failure: Exception = self._unreachable(url, exc, attempts=retries.attempts)
            except httpx.TransportError as exc:
                failure = self._unreachable(url, exc, attempts=retries.attempts)
            except ServerHTTPError as exc:
                if exc.status < 500 and not exc.busy:
                    raise
                failure = exc
            retries.wait_or_raise(failure)

    def _backoff(self, attempt: int, deadline: float, failure: Exception) -> bool:
        """Sleep before the next attempt; False when no attempt is left (count or time)."""
        if attempt >= self.retries:
            return False
        delay = min(self.backoff_base * (2**attempt), MAX_BACKOFF_SECONDS)
        if time.monotonic() + delay > deadline:
            return False
        log.warning(
            "model server failed (%s); retrying in %.1f s", self.scrub(str(failure)).splitlines()[0], delay
        )
        self._sleep(delay)
        return True

    def _url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}"

    def _decode(self, url: str, text: str) -> dict[str, Any]:
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            shown = self.scrub(text.strip()[:200]) or "(empty)"
            raise ServerError(
                "ACODE-MODEL-103",
                f"the model server at {url} answered something that is not a JSON object: {shown}",
                hint="model.base_url must point at an OpenAI-compatible API (it usually ends in /v1)",
            )
        return value

    def _raise_for_status(self, url: str, status: int, body: str, retry_after: str | None = None) -> None:
        if status < 400:
            return
        body = self.scrub(body)
        detail = _error_detail(body)
        if status in BUSY_STATUSES:
            raise ServerHTTPError(
                "ACODE-MODEL-109",
                f"the model server at {url} is busy (HTTP {status}): {detail}",
                status=status,
                body=body,
                hint="it stayed busy for longer than the request may wait: raise model.timeout_seconds, run "
                "fewer jobs at once, or give the server more capacity (docs/guide/servers.md)",
                retry_after=_seconds(retry_after),
            )
        if status in (401, 403):
            raise ServerHTTPError(
                "ACODE-MODEL-106",
                f"the model server at {url} refused the credentials (HTTP {status}): {detail}",
                status=status,
                body=body,
                hint=f"put the server's API key in the environment variable {self.api_key_env} "
                "(config key model.api_key_env names that variable)",
            )
        if status == 404:
            raise ServerHTTPError(
                "ACODE-MODEL-105",
                f"the model server answered HTTP 404 for {url}: {detail}",
                status=status,
                body=body,
                hint="check model.name against the server's model list and that model.base_url ends in /v1",
            )
        if status >= 500:
            raise ServerHTTPError(
                "ACODE-MODEL-102",
                f"the model server at {url} failed (HTTP {status}): {detail}",
                status=status,
                body=body,
                hint="look at the server's own log; " + SERVER_HINT,
            )
        raise ServerHTTPError(
            "ACODE-MODEL-107",
            f"the model server at {url} rejected the request (HTTP {status}): {detail}",
            status=status,
            body=body,
            hint="the server may not support a feature acode asked for; see docs/guide/servers.md",
        )

    def _unreachable(self, url: str, exc: Exception, *, attempts: int) -> ServerError:
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        reason = self.scrub(str(exc)) or type(exc).__name__
        return ServerError(
            "ACODE-MODEL-101",
            f"cannot reach the model server at {url}{tries}: {reason}",
            hint=f"{SERVER_HINT} (now {self.base_url})",
        )

    def _timed_out(self, url: str, seconds: float) -> ModelTimeoutError:
        return ModelTimeoutError(
            "ACODE-MODEL-104",
            f"the model server at {url} did not finish answering within {seconds:g} s",
            hint="raise model.timeout_seconds, ask for fewer tokens, or use a faster model or server",
        )


class _Retries:
    """After a failed attempt: wait while the server says it is busy (for as long as the request's time
    limit allows, the wait said on stderr each time), retry other failures ``client.retries`` times with
    backoff, or raise."""

    def __init__(self, client: ServerClient, deadline: float):
        self.client = client
        self.deadline = deadline
        self.failures = 0
        self.busy_waits = 0

    @property
    def attempts(self) -> int:
        return self.failures + self.busy_waits + 1

    def wait_or_raise(self, failure: Exception) -> None:
        if isinstance(failure, ServerHTTPError) and failure.busy:
            delay = failure.retry_after
            if delay is None:
                delay = self.client.backoff_base * 2 ** min(self.busy_waits, 6)
            delay = min(max(delay, 0.0), MAX_BUSY_WAIT_SECONDS)
            if time.monotonic() + delay > self.deadline:
                raise _gave_up(failure, self.attempts)
            self.busy_waits += 1
            log.warning("the model server is busy (HTTP %s); waiting %.1f s before asking again (wait %d)",
                        failure.status, delay, self.busy_waits)
            self.client._sleep(delay)
            return
        if not self.client._backoff(self.failures, self.deadline, failure):
            raise _gave_up(failure, self.attempts)
        self.failures += 1


def _seconds(retry_after: str | None) -> float | None:
    """A Retry-After header given in seconds (the HTTP-date form is left to the backoff)."""
    try:
        return float(retry_after) if retry_after is not None else None
    except ValueError:
        return None


def _gave_up(failure: Exception, attempts: int) -> Exception:
    """A 5xx failure that outlived every retry says so (connection failures already count attempts)."""
    if isinstance(failure, ServerHTTPError) and attempts > 1:
        return ServerHTTPError(
            failure.code,
            f"{failure.message} (gave up after {attempts} attempts)",
            status=failure.status,
            body=failure.body,
            hint=failure.hint,
            retry_after=failure.retry_after,
        )
    return failure


def _sse_data(line: str) -> str | None:
    """The payload of an SSE ``data:`` line; None for comments, event names and blank lines."""
    if not line.startswith("data:"):
        return None
    return line[len("data:") :].strip()


def _error_detail(body: str) -> str:
    """The server's own error message, from the usual JSON shapes, else the start of the body."""
    try:
        value = json.loads(body)
    except ValueError:
        return body.strip()[:300] or "(empty body)"
    if isinstance(value, dict):
        error = value.get("error", value.get("detail", value))
        if isinstance(error, dict):
            error = error.get("message", error)
        return str(error)[:300]
    return str(value)[:300]
