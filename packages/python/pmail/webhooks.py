"""Standard Webhooks verification of a pmail delivery (docs/guides/webhooks.md): the same rule and
tolerance as @pmail/client's `verifyWebhook`."""

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any, Callable, Dict, Mapping, Optional, Union

from .errors import WebhookVerificationError

__all__ = ["WEBHOOK_TOLERANCE_S", "verify_webhook"]

SECRET_PREFIX = "whsec_"
#: Seconds a delivery's timestamp may be away from the receiver's clock.
WEBHOOK_TOLERANCE_S = 300


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name:
            return " ".join(value) if isinstance(value, (list, tuple)) else str(value)
    return None


def verify_webhook(
    payload: Union[bytes, str],
    headers: Mapping[str, Any],
    secret: str,
    now: Optional[Callable[[], float]] = None,
    tolerance: int = WEBHOOK_TOLERANCE_S,
) -> Dict[str, Any]:
    """Check one delivery and return its parsed envelope, or raise WebhookVerificationError.

    `webhook-signature` holds one or more space-separated `v1,<base64 HMAC-SHA256 of
    "id.timestamp.payload">` keyed with the bytes of the `whsec_<base64>` secret; any one matching
    (compared in constant time) is enough, and `webhook-timestamp` (epoch seconds) must be within
    `tolerance` seconds of `now`. `payload` is the raw body, byte for byte as received.
    """
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signature = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signature:
        raise WebhookVerificationError("missing webhook headers")
    if not secret.startswith(SECRET_PREFIX):
        raise WebhookVerificationError("the secret is not a whsec_ secret")
    now_s = int((now or time.time)())
    if not timestamp.isdigit() or abs(now_s - int(timestamp)) > tolerance:
        raise WebhookVerificationError("the webhook timestamp is out of range")
    body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX):])
    except (binascii.Error, ValueError):
        raise WebhookVerificationError("the secret is not a whsec_ secret") from None
    signed = b"%s.%s.%s" % (msg_id.encode("utf-8"), timestamp.encode("ascii"), body)
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
    matched = False
    for part in signature.split(" "):
        if part.startswith("v1,"):
            # Every candidate is compared, in constant time, whatever an earlier one gave.
            matched = hmac.compare_digest(part[3:].encode("utf-8"), expected) or matched
    if not matched:
        raise WebhookVerificationError("no webhook signature matches")
    return json.loads(body.decode("utf-8"))
