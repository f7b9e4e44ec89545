"""pmail: email with safe retries for AI agents and applications — the Python client.

    from pmail import Pmail, PmailError

    pmail = Pmail(api_key="pm_…", base_url="http://127.0.0.1:8787")
    sent = pmail.messages.send("idn_…", {"to": ["ada@example.com"], "subject": "Hi", "text": "Hi"})
    sent.data["id"], sent.idempotency_key, sent.replayed

The standard library only, Python 3.9+. See README.md.
"""

from ._http import PmailConnectionError
from .client import BatchResult, Keyed, Pmail
from .errors import ERROR_CODES, PmailError, PmailWaitTimeoutError, WebhookVerificationError
from .webhooks import WEBHOOK_TOLERANCE_S, verify_webhook

__version__ = "0.1.0"

__all__ = [
    "ERROR_CODES",
    "WEBHOOK_TOLERANCE_S",
    "BatchResult",
    "Keyed",
    "Pmail",
    "PmailConnectionError",
    "PmailError",
    "PmailWaitTimeoutError",
    "WebhookVerificationError",
    "verify_webhook",
]
