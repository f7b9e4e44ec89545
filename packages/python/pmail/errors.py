"""The errors of the pmail client. Match an API error on `code` (stable), never on its message."""

from typing import Any, Dict, Mapping, Optional

from .types import ERROR_CODES

__all__ = ["ERROR_CODES", "PmailError", "PmailWaitTimeoutError", "WebhookVerificationError"]


class PmailError(Exception):
    """An error answer of the API: `code` (one of ERROR_CODES), `status`, `message`, `details`,
    `request_id` (quote it when reporting a problem), `retryable`, `fix`, `retry_after` (seconds).
    It never holds the API key nor the request's body."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int,
        details: Optional[Dict[str, Any]] = None,
        request_id: Optional[str] = None,
        retryable: bool = False,
        fix: Optional[str] = None,
        retry_after: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.details: Dict[str, Any] = dict(details or {})
        self.request_id = request_id
        self.retryable = retryable
        self.fix = fix
        self.retry_after = retry_after

    def __str__(self) -> str:
        return "%s (%d): %s" % (self.code, self.status, self.message)

    def __repr__(self) -> str:
        return "PmailError(code=%r, status=%r, request_id=%r)" % (self.code, self.status, self.request_id)

    @classmethod
    def from_envelope(
        cls, status: int, body: Any, request_id: Optional[str], retry_after: Optional[int]
    ) -> "PmailError":
        """The error of an answer: pmail's `{ "error": … }` envelope, or one made from its status."""
        env = body.get("error") if isinstance(body, Mapping) else None
        if isinstance(env, Mapping) and isinstance(env.get("code"), str):
            return cls(
                code=env["code"],
                message=str(env.get("message") or env["code"]),
                status=status,
                details=env.get("details") if isinstance(env.get("details"), dict) else {},
                request_id=env.get("request_id") if isinstance(env.get("request_id"), str) else request_id,
                retryable=env.get("retryable") is True,
                fix=env.get("fix") if isinstance(env.get("fix"), str) else None,
                retry_after=retry_after,
            )
        # An answer without pmail's envelope (a proxy, a gateway): classified by its status alone.
        return cls(
            code="unavailable" if status >= 500 else "invalid_request",
            message="HTTP %d without an error body" % status,
            status=status,
            request_id=request_id,
            retryable=status >= 500 or status == 429,
            retry_after=retry_after,
        )


class PmailWaitTimeoutError(Exception):
    """`messages.wait` saw none of the statuses it waits for in time; `last_status` is the last read."""

    def __init__(self, message_id: str, last_status: str, timeout: float) -> None:
        super().__init__("message %s is still %s after %s s" % (message_id, last_status, timeout))
        self.last_status = last_status


class WebhookVerificationError(Exception):
    """A webhook delivery that does not verify: no or a wrong signature, or a timestamp out of range."""
