"""webhooks.verify against a delivery `npm start` signed and sent, and the rule's edges: a tampered
body, a wrong secret, the timestamp tolerance (the TypeScript client's 300 s), every candidate
signature compared in constant time."""

import hmac
import http.server
import json
import threading
import time

import pytest

from pmail import WEBHOOK_TOLERANCE_S, WebhookVerificationError, verify_webhook


@pytest.fixture
def receiver():
    got = []
    arrived = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers["content-length"]))
            got.append((dict(self.headers.items()), body))
            arrived.set()
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d/hook" % server.server_address[1], got, arrived
    server.shutdown()
    server.server_close()


def test_a_delivery_pmail_signed_verifies_and_a_tampered_one_does_not(stack, receiver):
    url, got, arrived = receiver
    client = stack.client()
    endpoint = client.webhooks.add({"url": url})
    try:
        client.webhooks.test(endpoint["id"])
        assert arrived.wait(30)
        headers, body = got[0]
        envelope = client.webhooks.verify(body, headers, endpoint["secret"])
        assert envelope["type"] and envelope["id"] == headers["webhook-id"]
        with pytest.raises(WebhookVerificationError):
            client.webhooks.verify(body + b" ", headers, endpoint["secret"])
        with pytest.raises(WebhookVerificationError):
            client.webhooks.verify(body, headers, "whsec_" + "A" * 32)
    finally:
        client.webhooks.delete(endpoint["id"])


def signed(secret: str, ts: int, body: bytes = b'{"id":"evt_1"}') -> dict:
    import base64
    import hashlib

    key = base64.b64decode(secret[len("whsec_"):])
    sig = base64.b64encode(hmac.new(key, b"msg_1.%d.%s" % (ts, body), hashlib.sha256).digest()).decode()
    return {"webhook-id": "msg_1", "webhook-timestamp": str(ts), "webhook-signature": "v1,bm90IGl0 v1," + sig}


SECRET = "whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM="


def test_the_timestamp_may_be_300_seconds_away_and_no_more():
    assert WEBHOOK_TOLERANCE_S == 300
    ts = int(time.time())
    h = signed(SECRET, ts)
    for offset in (-300, 0, 300):
        assert verify_webhook(b'{"id":"evt_1"}', h, SECRET, now=lambda: ts + offset) == {"id": "evt_1"}
    for offset in (-301, 301):
        with pytest.raises(WebhookVerificationError, match="timestamp"):
            verify_webhook(b'{"id":"evt_1"}', h, SECRET, now=lambda: ts + offset)


def test_every_candidate_signature_is_compared_in_constant_time(monkeypatch):
    compared = []
    real = hmac.compare_digest

    def compare(a, b):
        compared.append(a)
        return real(a, b)

    monkeypatch.setattr("pmail.webhooks.hmac.compare_digest", compare)
    ts = int(time.time())
    verify_webhook(b'{"id":"evt_1"}', signed(SECRET, ts), SECRET, now=lambda: ts)
    # The wrong candidate first, then the right one: both went through compare_digest.
    assert len(compared) == 2 and compared[0] == b"bm90IGl0"


def test_missing_headers_and_a_secret_that_is_not_whsec_are_refused():
    with pytest.raises(WebhookVerificationError, match="missing"):
        verify_webhook(b"{}", {}, SECRET)
    with pytest.raises(WebhookVerificationError, match="whsec_"):
        verify_webhook(b"{}", signed(SECRET, int(time.time())), "not-a-secret")
