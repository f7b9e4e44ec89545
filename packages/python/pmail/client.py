"""The pmail API from Python: the calls of @pmail/client (packages/client), with the same retry
rule (pmail/_http.py). Every method returns the answer's body (a TypedDict of pmail.types) or
raises a PmailError; the calls that take an Idempotency-Key return a `Keyed` result."""

import time
import urllib.parse
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Dict, Generic, Iterable, Iterator, List, Mapping, Optional, TypeVar, Union

from . import types as t
from ._http import Transport
from .errors import PmailError, PmailWaitTimeoutError
from .webhooks import WEBHOOK_TOLERANCE_S, verify_webhook

__all__ = ["BatchResult", "Keyed", "Pmail"]

T = TypeVar("T")


@dataclass(frozen=True)
class Keyed(Generic[T]):
    """The answer of a call that took an Idempotency-Key: the body, the key used (yours, or one
    generated), and whether the server answered with the stored first answer (a replay)."""

    data: T
    idempotency_key: str
    replayed: bool


@dataclass(frozen=True)
class BatchResult:
    """What one message of a batch came to: its key, the status `messages.send` would have had,
    and its message or its error."""

    idempotency_key: str
    status: int
    message: Optional[t.SendMessageResponse] = None
    error: Optional[PmailError] = None


def _q(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


def _new_key() -> str:
    return str(uuid.uuid4())


class _Group:
    def __init__(self, http: Transport) -> None:
        self._http = http

    def _get(self, path: str, **query: Any) -> Any:
        return self._http.request("GET", path, query=query).body

    def _keyed(self, path: str, body: Any, key: Optional[str], query: Optional[Dict[str, Any]] = None) -> Keyed[Any]:
        key = key if key is not None else _new_key()
        answer = self._http.request("POST", path, query=query, body=body, idempotency_key=key)
        return Keyed(answer.body, key, answer.headers.get("idempotent-replayed") == "true")

    def _pages(self, path: str, query: Dict[str, Any]) -> Iterator[Any]:
        """Each page, following `next_cursor` until there is none."""
        while True:
            page = self._get(path, **query)
            yield page
            cursor = page.get("next_cursor") if isinstance(page, dict) else None
            if not cursor:
                return
            query = dict(query, cursor=cursor)


class Messages(_Group):
    def __init__(self, http: Transport, now: Callable[[], float], sleep: Callable[[float], None]) -> None:
        super().__init__(http)
        self._now = now
        self._sleep = sleep

    def _path(self, identity_id: str, message_id: Optional[str] = None, action: str = "") -> str:
        path = "/v1/identities/%s/messages" % _q(identity_id)
        if message_id is not None:
            path += "/" + _q(message_id)
        return path + ("/" + action if action else "")

    def send(
        self, identity_id: str, body: t.SendMessageRequest, idempotency_key: Optional[str] = None, dry_run: bool = False
    ) -> Keyed[t.SendMessageResponse]:
        """A new message (202, the stored message; a dry run: 200, what would happen). Keep the key
        to retry later: one Idempotency-Key never sends a second email."""
        return self._keyed(self._path(identity_id), body, idempotency_key, {"dry_run": True} if dry_run else None)

    def reply(
        self, identity_id: str, message_id: str, body: t.ReplyMessageRequest, idempotency_key: Optional[str] = None
    ) -> Keyed[t.SendMessageResponse]:
        return self._keyed(self._path(identity_id, message_id, "reply"), body, idempotency_key)

    def reply_all(
        self, identity_id: str, message_id: str, body: t.ReplyMessageRequest, idempotency_key: Optional[str] = None
    ) -> Keyed[t.SendMessageResponse]:
        return self._keyed(self._path(identity_id, message_id, "reply-all"), body, idempotency_key)

    def forward(
        self, identity_id: str, message_id: str, body: t.ForwardMessageRequest, idempotency_key: Optional[str] = None
    ) -> Keyed[t.SendMessageResponse]:
        return self._keyed(self._path(identity_id, message_id, "forward"), body, idempotency_key)

    def send_batch(self, identity_id: str, messages: Iterable[Mapping[str, Any]]) -> List[BatchResult]:
        """Up to 100 sends in one request (POST …/messages/batch), each under its own
        `idempotency_key` (generated when absent): one BatchResult per message, in order. A message
        whose answer says to retry (`not_attempted`, `request_in_progress`, a 5xx, a short 429) is
        sent again under the same key, up to the client's `retries`; each is sent at most once."""
        keyed = [dict(m, idempotency_key=m.get("idempotency_key") or _new_key()) for m in messages]
        results: List[Optional[BatchResult]] = [None] * len(keyed)
        pending = list(range(len(keyed)))
        round_ = 0
        while pending:
            answer = self._http.request(
                "POST", self._path(identity_id, "batch"), body={"messages": [keyed[i] for i in pending]}
            )
            again: List[int] = []
            wait = 0.0
            for i, item in zip(pending, answer.body["data"]):
                results[i] = _batch_result(keyed[i]["idempotency_key"], item)
                delay = self._batch_retry_delay(item, round_)
                if delay is not None and round_ < self._http.retries:
                    again.append(i)
                    wait = max(wait, delay)
            pending = again
            round_ += 1
            if pending:
                self._sleep(wait)
        return [r for r in results if r is not None]

    def _batch_retry_delay(self, item: Mapping[str, Any], round_: int) -> Optional[float]:
        """The single send's rule for one message's answer: a 5xx, a 429, a request_in_progress."""
        error = item.get("error")
        status = item.get("status", 0)
        if not error or not error.get("retryable"):
            return None
        if status == 409 and error.get("code") != "request_in_progress":
            return None
        if status != 409 and status < 500 and status != 429:
            return None
        if item.get("retry_after") is not None:
            seconds = float(item["retry_after"])
            return None if seconds > self._http.max_delay else seconds
        return self._http._backoff(round_)

    def get(self, identity_id: str, message_id: str) -> t.Message:
        return self._get(self._path(identity_id, message_id))

    def list(
        self,
        identity_id: str,
        direction: Optional[str] = None,
        status: Optional[str] = None,
        limit: Optional[int] = None,
        thread_id: Optional[str] = None,
        **filters: Any,
    ) -> Iterator[Dict[str, Any]]:
        """The identity's messages, newest first, one page (`data`, `next_cursor`) at a time.

        `filters`: label, from_ (the sender), to, subject, since, until (RFC 3339), has_attachment
        (a bool); a filtered page may hold fewer than `limit`, even none, and still go on.
        """
        query = {"direction": direction, "status": status, "limit": limit, "thread_id": thread_id}
        return self._pages(self._path(identity_id), {**query, **_filters(filters)})

    def search(
        self,
        identity_id: str,
        q: str,
        direction: Optional[str] = None,
        limit: Optional[int] = None,
        thread_id: Optional[str] = None,
        **filters: Any,
    ) -> Iterator[Dict[str, Any]]:
        """Full-text search of the identity's mail, newest first, one page at a time.

        `q`: words and "quoted phrases", all of which must match, in any case and with or without
        accents (at most 256 characters and 16 words, else `invalid_query`). Each hit carries
        `highlight`: `field`, `text` (a plain-text passage of the mail: untrusted) and `matches`
        (`start`, `end`: offsets in `text` in UTF-16 code units). `filters` as `list`'s.
        """
        query = {"q": q, "direction": direction, "limit": limit, "thread_id": thread_id}
        return self._pages(self._path(identity_id), {**query, **_filters(filters)})

    def wait(
        self,
        identity_id: str,
        message_id: str,
        until: Union[str, Iterable[str]],
        timeout: float = 60.0,
        interval: float = 1.0,
    ) -> t.Message:
        """Reads the message every `interval` seconds until its status is one of `until`; raises
        PmailWaitTimeoutError (with `last_status`) after `timeout` seconds."""
        wanted = {until} if isinstance(until, str) else set(until)
        deadline = self._now() + timeout
        while True:
            message = self.get(identity_id, message_id)
            if message["status"] in wanted:
                return message
            if self._now() >= deadline:
                raise PmailWaitTimeoutError(message_id, message["status"], timeout)
            self._sleep(min(interval, max(0.0, deadline - self._now())))

    def label(
        self, identity_id: str, message_id: str, add: Iterable[str] = (), remove: Iterable[str] = ()
    ) -> t.MessageLabels:
        """Add and remove the message's labels; the labels after the change. Idempotent: sending it again changes nothing more."""
        body = {"add": list(add), "remove": list(remove)}
        return self._http.request("POST", self._path(identity_id, message_id, "labels"), body=body).body

    def cancel(self, identity_id: str, message_id: str) -> t.Message:
        """Not resent after a network error (the POST takes no key): read the message to learn the outcome."""
        return self._http.request("POST", self._path(identity_id, message_id, "cancel")).body

    def approve(self, identity_id: str, message_id: str) -> t.Message:
        return self._http.request("POST", self._path(identity_id, message_id, "approve")).body

    def reject(self, identity_id: str, message_id: str) -> t.Message:
        return self._http.request("POST", self._path(identity_id, message_id, "reject")).body

    def resolve(
        self, identity_id: str, message_id: str, outcome: str, idempotency_key: Optional[str] = None
    ) -> Keyed[t.Message]:
        """Say what happened to an `uncertain` message: `sent` or `not_sent`."""
        return self._keyed(self._path(identity_id, message_id, "resolve"), {"outcome": outcome}, idempotency_key)


def _filters(filters: Mapping[str, Any]) -> Dict[str, Any]:
    """The list filters as query parameters: `from_` is `from`, a bool `has_attachment` `true`/`false`."""
    out: Dict[str, Any] = {}
    for name, value in filters.items():
        if value is None:
            continue
        key = "from" if name == "from_" else name
        out[key] = ("true" if value else "false") if isinstance(value, bool) else value
    return out


def _batch_result(key: str, item: Mapping[str, Any]) -> BatchResult:
    error = item.get("error")
    if not error:
        return BatchResult(key, item["status"], message=item.get("message"))
    return BatchResult(
        key,
        item["status"],
        error=PmailError(
            code=error.get("code", "internal_error"),
            message=error.get("message", ""),
            status=item["status"],
            details=error.get("details"),
            request_id=error.get("request_id"),
            retryable=error.get("retryable") is True,
            fix=error.get("fix"),
            retry_after=item.get("retry_after"),
        ),
    )


class Threads(_Group):
    def list(self, identity_id: str, limit: Optional[int] = None, **filters: Any) -> Iterator[Dict[str, Any]]:
        """The identity's conversations, latest first, one page at a time; `filters` as `messages.list`'s."""
        return self._pages("/v1/identities/%s/threads" % _q(identity_id), {"limit": limit, **_filters(filters)})

    def search(self, identity_id: str, q: str, limit: Optional[int] = None, **filters: Any) -> Iterator[Dict[str, Any]]:
        """The conversations holding a match of `q` (as `messages.search`), newest activity first,
        each with the `highlight` of its newest matching message, one page at a time."""
        return self._pages("/v1/identities/%s/threads" % _q(identity_id), {"q": q, "limit": limit, **_filters(filters)})

    def get(self, identity_id: str, thread_id: str) -> t.Thread:
        """One conversation and its messages, oldest first."""
        return self._get("/v1/identities/%s/threads/%s" % (_q(identity_id), _q(thread_id)))

    def label(
        self, identity_id: str, thread_id: str, add: Iterable[str] = (), remove: Iterable[str] = ()
    ) -> t.ThreadLabels:
        """Add and remove the conversation's labels; the labels after the change (idempotent)."""
        body = {"add": list(add), "remove": list(remove)}
        path = "/v1/identities/%s/threads/%s/labels" % (_q(identity_id), _q(thread_id))
        return self._http.request("POST", path, body=body).body


class Events(_Group):
    def list(self, after: Optional[str] = None, limit: Optional[int] = None) -> Iterator[Dict[str, Any]]:
        """The tenant's event feed in order, one page at a time, reading on from `after`."""
        while True:
            page = self._get("/v1/events", after=after, limit=limit)
            yield page
            if not page.get("next_cursor") or not page.get("data"):
                return
            after = page["data"][-1]["id"]


class Tenants(_Group):
    def create(self, body: t.TenantCreateRequest, idempotency_key: Optional[str] = None) -> Keyed[t.Tenant]:
        return self._keyed("/v1/tenants", body, idempotency_key)

    def list(self, limit: Optional[int] = None) -> Iterator[Dict[str, Any]]:
        return self._pages("/v1/tenants", {"limit": limit})

    def get(self, tenant_id: str) -> t.Tenant:
        return self._get("/v1/tenants/%s" % _q(tenant_id))

    def search_messages(self, tenant_id: str, q: str, limit: Optional[int] = None, **filters: Any) -> Iterator[Dict[str, Any]]:
        """Full-text search across the tenant's identities (a tenant or platform key), newest
        first, one page at a time: as `messages.search`, each hit with its `identity_id`."""
        return self._pages("/v1/tenants/%s/messages" % _q(tenant_id), {"q": q, "limit": limit, **_filters(filters)})


class Identities(_Group):
    def create(
        self, tenant_id: str, body: t.IdentityCreateRequest, idempotency_key: Optional[str] = None
    ) -> Keyed[t.Identity]:
        return self._keyed("/v1/tenants/%s/identities" % _q(tenant_id), body, idempotency_key)

    def list(self, tenant_id: str, limit: Optional[int] = None) -> Iterator[Dict[str, Any]]:
        return self._pages("/v1/tenants/%s/identities" % _q(tenant_id), {"limit": limit})

    def get(self, identity_id: str) -> t.Identity:
        return self._get("/v1/identities/%s" % _q(identity_id))

    def update(self, identity_id: str, body: t.IdentityUpdateRequest) -> t.Identity:
        return self._http.request("PATCH", "/v1/identities/%s" % _q(identity_id), body=body).body

    def pause(self, identity_id: str) -> t.Identity:
        return self.update(identity_id, {"status": "paused"})

    def resume(self, identity_id: str) -> t.Identity:
        return self.update(identity_id, {"status": "active"})


class Keys(_Group):
    def create(self, body: t.KeyCreateRequest, idempotency_key: Optional[str] = None) -> Keyed[t.KeyCreated]:
        """A new key; its secret is in this answer only."""
        return self._keyed("/v1/keys", body, idempotency_key)

    def list(self, limit: Optional[int] = None) -> Iterator[Dict[str, Any]]:
        return self._pages("/v1/keys", {"limit": limit})

    def get(self, key_id: str) -> t.Key:
        return self._get("/v1/keys/%s" % _q(key_id))

    def revoke(self, key_id: str) -> t.Key:
        return self._http.request("DELETE", "/v1/keys/%s" % _q(key_id)).body


class Domains(_Group):
    def add(self, tenant_id: str, body: t.DomainCreateRequest) -> t.Domain:
        """Not resent after a network error (the POST takes no key): list the domains to learn the outcome."""
        return self._http.request("POST", "/v1/tenants/%s/domains" % _q(tenant_id), body=body).body

    def list(self, tenant_id: str) -> Dict[str, Any]:
        return self._get("/v1/tenants/%s/domains" % _q(tenant_id))

    def get(self, tenant_id: str, domain_id: str) -> t.Domain:
        return self._get("/v1/tenants/%s/domains/%s" % (_q(tenant_id), _q(domain_id)))

    def verify(self, tenant_id: str, domain_id: str) -> t.Domain:
        return self._http.request("POST", "/v1/tenants/%s/domains/%s/verify" % (_q(tenant_id), _q(domain_id))).body

    def dns(self, tenant_id: str, domain_id: str) -> List[Dict[str, Any]]:
        """The DNS records to publish for the domain (its `dns_records`)."""
        return self.get(tenant_id, domain_id)["dns_records"]


class Webhooks(_Group):
    def __init__(self, http: Transport, now: Callable[[], float]) -> None:
        super().__init__(http)
        self._now = now

    def add(self, body: t.WebhookCreateRequest) -> t.WebhookCreated:
        """Not resent after a network error (the POST takes no key); its signing secret is in this answer only."""
        return self._http.request("POST", "/v1/webhooks", body=body).body

    def list(self) -> Dict[str, Any]:
        return self._get("/v1/webhooks")

    def get(self, webhook_id: str) -> t.Webhook:
        return self._get("/v1/webhooks/%s" % _q(webhook_id))

    def delete(self, webhook_id: str) -> None:
        self._http.request("DELETE", "/v1/webhooks/%s" % _q(webhook_id))

    def test(self, webhook_id: str) -> Dict[str, Any]:
        """A test delivery to the endpoint, signed like every delivery."""
        return self._http.request("POST", "/v1/webhooks/%s/test" % _q(webhook_id)).body

    def verify(
        self, payload: Union[bytes, str], headers: Mapping[str, Any], secret: str, tolerance: int = WEBHOOK_TOLERANCE_S
    ) -> Dict[str, Any]:
        """Checks a delivery's Standard Webhooks signature and timestamp; returns the parsed envelope."""
        return verify_webhook(payload, headers, secret, now=self._now, tolerance=tolerance)


class Suppressions(_Group):
    def add(self, tenant_id: str, body: t.SuppressionCreateRequest) -> t.Suppression:
        """Not resent after a network error (the POST takes no key); adding an address twice is harmless."""
        return self._http.request("POST", "/v1/tenants/%s/suppressions" % _q(tenant_id), body=body).body

    def list(self, tenant_id: str, limit: Optional[int] = None) -> Iterator[Dict[str, Any]]:
        return self._pages("/v1/tenants/%s/suppressions" % _q(tenant_id), {"limit": limit})

    def remove(self, tenant_id: str, address: str) -> None:
        self._http.request("DELETE", "/v1/tenants/%s/suppressions/%s" % (_q(tenant_id), _q(address)))


class Pmail:
    """The pmail API with one key.

    `Pmail(api_key=…, base_url="https://…")` (plain http:// only to a loopback address, as
    `npm start`'s http://127.0.0.1:8787). `retries` (default 3) resends what a resend cannot repeat,
    with the same key and body (pmail/_http.py); `sleep`, `random`, `now` and `send` are injectable.
    The key is never in a repr, an exception or a log line.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str,
        retries: int = 3,
        timeout: float = 30.0,
        base_delay: float = 0.2,
        max_delay: float = 30.0,
        sleep: Optional[Callable[[float], None]] = None,
        random: Optional[Callable[[], float]] = None,
        now: Optional[Callable[[], float]] = None,
        send: Optional[Any] = None,
    ) -> None:
        sleep = sleep or time.sleep
        now = now or time.time
        self._http = Transport(
            api_key, base_url, retries, base_delay, max_delay, timeout, sleep=sleep, random=random, send=send
        )
        self.base_url = self._http.base_url
        self.messages = Messages(self._http, now, sleep)
        self.threads = Threads(self._http)
        self.events = Events(self._http)
        self.tenants = Tenants(self._http)
        self.identities = Identities(self._http)
        self.keys = Keys(self._http)
        self.domains = Domains(self._http)
        self.webhooks = Webhooks(self._http, now)
        self.suppressions = Suppressions(self._http)

    def __repr__(self) -> str:
        return "Pmail(base_url=%r)" % self.base_url
