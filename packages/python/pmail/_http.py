"""The HTTP of the pmail client: one request through urllib, and the retry rule of @pmail/client
(packages/client/src/retry.ts), written again here.

A request is resent when resending cannot do its work twice: it carries an Idempotency-Key (the
server answers a resend with the first answer), it is a batch of sends (each message carries its
own key), or its method is GET, HEAD, PUT or DELETE. Such a request is resent after a network
error, a 5xx, a 429 and a 409 `request_in_progress`, with the same key and body. Any other request
(a POST or PATCH without a key) is resent only after a 429, which the server answers before doing
anything. The wait before resend n (0-based) is the answer's Retry-After when it has one, else
base · 2ⁿ, half fixed and half random, capped at `max_delay`; an answer asking for a longer wait (a
daily cap) or saying `retryable: false` is returned at once.
"""

import http.client
import ipaddress
import json
import logging
import random as _random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional, Tuple

from .errors import PmailError

__all__ = ["Answer", "PmailConnectionError", "Transport", "check_base_url"]

log = logging.getLogger("pmail")

SAFE_METHODS = frozenset(["GET", "HEAD", "PUT", "DELETE"])
USER_AGENT = "pmail-python/0.1.0"

#: `send(method, url, headers, body, timeout)` → (status, headers, body): one HTTP exchange.
Send = Callable[[str, str, Dict[str, str], Optional[bytes], float], Tuple[int, Mapping[str, str], bytes]]


class PmailConnectionError(Exception):
    """The API could not be reached, or its answer was lost, after every resend allowed."""


class Answer(NamedTuple):
    status: int
    headers: Dict[str, str]
    body: Any
    request_id: Optional[str]


def check_base_url(base_url: str) -> str:
    """The API's origin without a trailing slash: https://, or plain http:// only to loopback."""
    parts = urllib.parse.urlsplit(base_url)
    host = parts.hostname or ""
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError("base_url must be an origin such as https://api.example.com")
    if parts.scheme == "https" and host:
        return base_url.rstrip("/")
    if parts.scheme == "http" and _loopback(host):
        return base_url.rstrip("/")
    raise ValueError(
        "base_url must be https:// (plain http:// only to a loopback address such as 127.0.0.1): %s://%s"
        % (parts.scheme, parts.netloc)
    )


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def urllib_send(
    method: str, url: str, headers: Dict[str, str], body: Optional[bytes], timeout: float
) -> Tuple[int, Mapping[str, str], bytes]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as res:
            return res.status, {k.lower(): v for k, v in res.headers.items()}, res.read()
    except urllib.error.HTTPError as res:
        with res:
            return res.code, {k.lower(): v for k, v in res.headers.items()}, res.read()


# What a lost connection or answer looks like from urllib: a refused or reset connection, a
# connection closed before the answer, a timeout.
NETWORK_ERRORS = (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout, OSError)


class Transport:
    """Requests to one API with one key. The key is sent in the Authorization header only: it is
    never in a repr, an exception or a log line."""

    def __init__(
        self,
        api_key: str,
        base_url: str,
        retries: int = 3,
        base_delay: float = 0.2,
        max_delay: float = 30.0,
        timeout: float = 30.0,
        sleep: Optional[Callable[[float], None]] = None,
        random: Optional[Callable[[], float]] = None,
        send: Optional[Send] = None,
    ) -> None:
        if not isinstance(api_key, str) or not api_key:
            raise ValueError("api_key is required")
        self.base_url = check_base_url(base_url)
        self.__authorization = "Bearer " + api_key
        self.retries = retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.timeout = timeout
        self.sleep = sleep or time.sleep
        self.random = random or _random.random
        self.send = send or urllib_send

    def __repr__(self) -> str:
        return "Transport(base_url=%r)" % self.base_url

    def request(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        idempotency_key: Optional[str] = None,
    ) -> Answer:
        """One call: the answer of a 2xx, else a PmailError; resent by the rule above."""
        answer = self.exchange(method, path, query, body, idempotency_key)
        if answer.status >= 300:
            raise PmailError.from_envelope(
                answer.status, answer.body, answer.request_id, retry_after_of(answer.headers)
            )
        return answer

    def exchange(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        idempotency_key: Optional[str] = None,
    ) -> Answer:
        """The last answer, whatever its status, after the resends the rule allows."""
        url = self.base_url + path
        params = {k: _query_value(v) for k, v in (query or {}).items() if v is not None}
        if params:
            url += "?" + urllib.parse.urlencode(params)
        headers = {"authorization": self.__authorization, "user-agent": USER_AGENT, "accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode("utf-8")
            headers["content-type"] = "application/json"
        if idempotency_key is not None:
            headers["idempotency-key"] = idempotency_key
        safe = method in SAFE_METHODS or idempotency_key is not None or _keyed_in_body(method, path)
        attempt = 0
        while True:
            last = attempt >= self.retries
            try:
                status, got, raw = self.send(method, url, headers, data, self.timeout)
            except NETWORK_ERRORS as e:
                if not safe or last:
                    raise PmailConnectionError(
                        "could not reach %s (%s %s): %s" % (self.base_url, method, path, _reason(e))
                    ) from None
                wait = self._backoff(attempt)
                log.info("pmail: retry %d of %s %s after a network error (%s)", attempt + 1, method, path, _reason(e))
                self.sleep(wait)
                attempt += 1
                continue
            answer = _answer(status, got, raw)
            wait = None if last else self._retry_wait(answer, safe, attempt)
            if wait is None:
                return answer
            log.info("pmail: retry %d of %s %s after %d", attempt + 1, method, path, status)
            self.sleep(wait)
            attempt += 1

    def _retry_wait(self, answer: Answer, safe: bool, attempt: int) -> Optional[float]:
        s = answer.status
        if not (s == 429 or (safe and (s >= 500 or s == 409))):
            return None
        env = answer.body.get("error") if isinstance(answer.body, dict) else None
        env = env if isinstance(env, dict) else {}
        if s == 409 and env.get("code") != "request_in_progress":
            return None
        if env.get("retryable") is False:
            return None
        seconds = retry_after_of(answer.headers)
        if seconds is None:
            details = env.get("details")
            hinted = details.get("retry_after") if isinstance(details, dict) else None
            seconds = hinted if isinstance(hinted, (int, float)) and not isinstance(hinted, bool) else None
        if seconds is not None:
            return None if seconds > self.max_delay else float(seconds)
        return self._backoff(attempt)

    def _backoff(self, attempt: int) -> float:
        full = min(self.max_delay, self.base_delay * 2**attempt)
        return full / 2 + (full / 2) * self.random()


def retry_after_of(headers: Mapping[str, str]) -> Optional[int]:
    """Retry-After in seconds: delta-seconds only (what pmail sends); anything else is ignored."""
    value = headers.get("retry-after")
    return int(value.strip()) if value is not None and value.strip().isdigit() else None


def _keyed_in_body(method: str, path: str) -> bool:
    """A batch of sends: each message carries its own idempotency_key, so a resend repeats none."""
    return method == "POST" and path.endswith("/messages/batch")


def _query_value(v: Any) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _answer(status: int, headers: Mapping[str, str], raw: bytes) -> Answer:
    lowered = {k.lower(): v for k, v in headers.items()}
    body: Any = None
    if raw:
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            body = None
    return Answer(status, lowered, body, lowered.get("request-id"))


def _reason(e: BaseException) -> str:
    reason = getattr(e, "reason", None)
    return type(e).__name__ + (": %s" % reason if reason else (": %s" % e if str(e) else ""))
