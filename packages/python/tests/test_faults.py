"""The retry rule under faults made to happen by a proxy in front of `npm start`: an answer lost
after the server did the work, a 503 with Retry-After, a request still in progress, a refusal that
says not to retry. One message per key, whatever is lost."""

import uuid

import pytest

from pmail import PmailConnectionError, PmailError


def sends(method: str, path: str) -> bool:
    return method == "POST" and path.endswith("/messages")


def batches(method: str, path: str) -> bool:
    return method == "POST" and path.endswith("/messages/batch")


def outbound(client, identity_id: str, subject: str) -> list:
    found = []
    for page in client.messages.list(identity_id, direction="outbound", limit=100):
        found += [m for m in page["data"] if m["subject"] == subject]
    return found


def test_an_answer_lost_after_the_send_is_resent_with_the_same_key_one_message(stack, proxy):
    sleeps = []
    client = stack.client(base_url=proxy.url, sleep=sleeps.append, random=lambda: 0.5)
    subject = "py-lost-%s" % uuid.uuid4().hex[:8]
    proxy.lose(sends)
    sent = client.messages.send(stack.agent["id"], {"to": ["delivered@simulator.invalid"], "subject": subject, "text": "x"})
    keys = [k for (m, p, k) in proxy.seen if sends(m, p)]
    assert len(keys) == 2 and keys[0] == keys[1] == sent.idempotency_key
    assert sent.replayed is True
    assert len(sleeps) == 1
    assert len(outbound(stack.client(), stack.agent["id"], subject)) == 1


def test_a_batch_whose_answer_was_lost_is_resent_whole_one_message_per_key(stack, proxy):
    client = stack.client(base_url=proxy.url, sleep=lambda s: None)
    tag = uuid.uuid4().hex[:8]
    proxy.lose(batches)
    results = client.messages.send_batch(
        stack.agent["id"],
        [{"to": ["delivered@simulator.invalid"], "subject": "py-lost-batch-%s-%d" % (tag, i), "text": "x"} for i in range(3)],
    )
    assert len([1 for (m, p, k) in proxy.seen if batches(m, p)]) == 2
    assert [r.message["deduplicated"] for r in results] == [True, True, True]
    for i in range(3):
        assert len(outbound(stack.client(), stack.agent["id"], "py-lost-batch-%s-%d" % (tag, i))) == 1


def test_retry_after_of_a_503_is_honoured_and_the_resend_keeps_the_key(stack, proxy):
    sleeps = []
    client = stack.client(base_url=proxy.url, sleep=sleeps.append)
    proxy.answer(sends, 503, {"error": {"code": "unavailable", "retryable": True}}, {"retry-after": "2"})
    sent = client.messages.send(stack.agent["id"], {"to": ["delivered@simulator.invalid"], "subject": "py-503", "text": "x"})
    assert sleeps == [2.0]
    keys = [k for (m, p, k) in proxy.seen if sends(m, p)]
    assert keys == [sent.idempotency_key, sent.idempotency_key]
    assert sent.replayed is False


def test_request_in_progress_is_retried_and_a_refusal_saying_not_to_is_not(stack, proxy):
    client = stack.client(base_url=proxy.url, sleep=lambda s: None)
    proxy.answer(sends, 409, {"error": {"code": "request_in_progress", "retryable": True}})
    client.messages.send(stack.agent["id"], {"to": ["delivered@simulator.invalid"], "subject": "py-409", "text": "x"})
    assert len([1 for (m, p, k) in proxy.seen if sends(m, p)]) == 2

    proxy.seen.clear()
    proxy.answer(sends, 503, {"error": {"code": "unavailable", "message": "no", "retryable": False}})
    with pytest.raises(PmailError) as caught:
        client.messages.send(stack.agent["id"], {"to": ["delivered@simulator.invalid"], "subject": "py-final", "text": "x"})
    assert (caught.value.code, caught.value.retryable) == ("unavailable", False)
    assert len([1 for (m, p, k) in proxy.seen if sends(m, p)]) == 1


def test_a_long_retry_after_is_returned_at_once(stack, proxy):
    sleeps = []
    client = stack.client(base_url=proxy.url, sleep=sleeps.append)
    proxy.answer(sends, 429, {"error": {"code": "daily_cap_reached", "retryable": True}}, {"retry-after": "3600"})
    with pytest.raises(PmailError) as caught:
        client.messages.send(stack.agent["id"], {"to": ["delivered@simulator.invalid"], "subject": "py-cap", "text": "x"})
    assert (caught.value.code, caught.value.retry_after) == ("daily_cap_reached", 3600)
    assert sleeps == []


def test_a_post_without_a_key_is_not_resent_after_a_lost_answer(stack, proxy):
    client = stack.client(base_url=proxy.url, sleep=lambda s: None)
    sent = stack.client().messages.send(
        stack.agent["id"],
        {"to": ["delivered@simulator.invalid"], "subject": "py-cancel", "text": "x", "send_at": _in_a_day()},
    )
    proxy.lose(lambda m, p: p.endswith("/cancel"))
    with pytest.raises(PmailConnectionError) as caught:
        client.messages.cancel(stack.agent["id"], sent.data["id"])
    assert len([1 for (m, p, k) in proxy.seen if p.endswith("/cancel")]) == 1
    assert "could not reach" in str(caught.value)
    # The cancel happened: reading the message says so.
    assert stack.client().messages.get(stack.agent["id"], sent.data["id"])["status"] == "canceled"


def _in_a_day() -> str:
    import datetime

    return (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
