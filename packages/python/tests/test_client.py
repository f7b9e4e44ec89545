"""The client against its own `npm start`: sends and their replays, a batch, reads, waits, the
control plane, typed errors."""

import uuid

import pytest

from pmail import BatchResult, Keyed, Pmail, PmailError, PmailWaitTimeoutError

SIM = "delivered@simulator.invalid"


def mail(subject: str, to: str = SIM) -> dict:
    return {"to": [to], "subject": subject, "text": "Body of %s" % subject}


def outbound(client: Pmail, identity_id: str, subject: str) -> list:
    found = []
    for page in client.messages.list(identity_id, direction="outbound", limit=100):
        found += [m for m in page["data"] if m["subject"] == subject]
    return found


def test_a_send_and_its_replay_under_one_key_are_one_message(stack):
    client = stack.client()
    subject = "py-twice-%s" % uuid.uuid4().hex[:8]
    first = client.messages.send(stack.agent["id"], mail(subject), idempotency_key=subject)
    again = client.messages.send(stack.agent["id"], mail(subject), idempotency_key=subject)
    assert isinstance(first, Keyed)
    assert (first.replayed, again.replayed) == (False, True)
    assert first.idempotency_key == subject
    assert again.data["id"] == first.data["id"] and again.data["deduplicated"] is True
    assert len(outbound(client, stack.agent["id"], subject)) == 1


def test_a_key_is_generated_and_returned_when_none_is_given(stack):
    client = stack.client()
    sent = client.messages.send(stack.agent["id"], mail("py-generated"))
    assert len(sent.idempotency_key) == 36
    again = client.messages.send(stack.agent["id"], mail("py-generated"), idempotency_key=sent.idempotency_key)
    assert again.data["id"] == sent.data["id"]


def test_the_same_key_with_another_body_is_a_typed_409(stack):
    client = stack.client()
    client.messages.send(stack.agent["id"], mail("py-conflict"), idempotency_key="py-conflict")
    with pytest.raises(PmailError) as caught:
        client.messages.send(stack.agent["id"], mail("py-conflict-other"), idempotency_key="py-conflict")
    e = caught.value
    assert (e.code, e.status, e.retryable) == ("idempotency_conflict", 409, False)
    assert e.request_id.startswith("req_")
    assert e.fix


def test_wait_follows_a_message_to_delivered_and_times_out_on_a_status_that_never_comes(stack):
    client = stack.client()
    sent = client.messages.send(stack.agent["id"], mail("py-wait"))
    done = client.messages.wait(stack.agent["id"], sent.data["id"], until=["delivered", "bounced"], interval=0.2, timeout=30)
    assert done["status"] == "delivered"
    with pytest.raises(PmailWaitTimeoutError) as caught:
        client.messages.wait(stack.agent["id"], sent.data["id"], until="canceled", interval=0.05, timeout=0.2)
    assert caught.value.last_status == "delivered"


def test_list_is_an_iterator_over_pages(stack):
    client = stack.client()
    for i in range(3):
        client.messages.send(stack.agent["id"], mail("py-page-%d" % i))
    pages = client.messages.list(stack.agent["id"], direction="outbound", limit=1)
    first_three = [next(pages) for _ in range(3)]
    assert all(len(p["data"]) == 1 for p in first_three)
    assert len({p["data"][0]["id"] for p in first_three}) == 3
    assert first_three[0]["next_cursor"]


def test_send_batch_answers_each_message_in_order_and_replays_when_sent_again(stack):
    client = stack.client()
    tag = uuid.uuid4().hex[:8]
    messages = [
        dict(mail("py-batch-%s-a" % tag), idempotency_key="py-batch-%s-a" % tag),
        dict(mail("py-batch-%s-b" % tag, to="not an address"), idempotency_key="py-batch-%s-b" % tag),
        mail("py-batch-%s-c" % tag),
    ]
    results = client.messages.send_batch(stack.agent["id"], messages)
    assert all(isinstance(r, BatchResult) for r in results)
    assert [r.status for r in results] == [202, 400, 202]
    assert results[1].error.code == "address_invalid" and results[1].error.status == 400
    assert results[0].message["deduplicated"] is False
    messages[2]["idempotency_key"] = results[2].idempotency_key
    again = client.messages.send_batch(stack.agent["id"], messages)
    assert [r.message["deduplicated"] if r.message else None for r in again] == [True, None, True]
    assert len(outbound(client, stack.agent["id"], "py-batch-%s-c" % tag)) == 1


def test_a_reply_and_the_conversation(stack):
    client = stack.client()
    tag = uuid.uuid4().hex[:8]
    sent = client.messages.send(stack.agent["id"], mail("py-thread-%s" % tag, to=stack.peer["address"]))
    client.messages.wait(stack.agent["id"], sent.data["id"], until="delivered", interval=0.2, timeout=30)
    inbound = None
    for _ in range(50):
        page = next(client.messages.list(stack.peer["id"], direction="inbound", limit=20))
        inbound = next((m for m in page["data"] if m["subject"] == "py-thread-%s" % tag), None)
        if inbound:
            break
        __import__("time").sleep(0.2)
    assert inbound is not None
    reply = client.messages.reply(stack.peer["id"], inbound["id"], {"text": "Thanks."})
    assert reply.data["in_reply_to"] == inbound["rfc_message_id"]
    thread = client.threads.get(stack.peer["id"], reply.data["thread_id"])
    assert [m["id"] for m in thread["messages"]][-1] == reply.data["id"]
    assert any(t["id"] == reply.data["thread_id"] for t in next(client.threads.list(stack.peer["id"]))["data"])
    labelled = client.messages.label(stack.peer["id"], inbound["id"], add=["needs-reply", "py"])
    assert labelled["labels"] == ["needs-reply", "py"]
    assert client.messages.label(stack.peer["id"], inbound["id"], remove=["py"])["labels"] == ["needs-reply"]
    assert client.messages.get(stack.peer["id"], inbound["id"])["labels"] == ["needs-reply"]
    assert client.threads.label(stack.peer["id"], reply.data["thread_id"], add=["handled"])["labels"] == ["handled"]
    assert client.threads.get(stack.peer["id"], reply.data["thread_id"])["labels"] == ["handled"]
    filtered = next(client.messages.list(stack.peer["id"], label="needs-reply", has_attachment=False))
    assert [m["id"] for m in filtered["data"]] == [inbound["id"]]
    threads = next(client.threads.list(stack.peer["id"], label="handled"))
    assert [t["id"] for t in threads["data"]] == [reply.data["thread_id"]]


def _utf16(text: str, start: int, end: int) -> str:
    """The part of `text` between two UTF-16 offsets (a highlight's `matches`)."""
    units = text.encode("utf-16-le")
    return units[start * 2 : end * 2].decode("utf-16-le")


def test_search_finds_a_received_message_by_a_word_of_its_body(stack):
    client = stack.client()
    word = "quay%s" % uuid.uuid4().hex[:8]
    sent = client.messages.send(
        stack.agent["id"],
        {"to": [stack.peer["address"]], "subject": "py-search ✓", "text": "📦 The %s is ready — café at noon." % word},
    )
    client.messages.send(stack.agent["id"], mail("py-search-other", to=stack.peer["address"]))
    client.messages.wait(stack.agent["id"], sent.data["id"], until="delivered", interval=0.2, timeout=30)
    hits = []
    for _ in range(100):
        hits = next(client.messages.search(stack.peer["id"], word, direction="inbound"))["data"]
        if hits:
            break
        __import__("time").sleep(0.2)
    assert [m["subject"] for m in hits] == ["py-search ✓"]
    highlight = hits[0]["highlight"]
    match = highlight["matches"][0]
    # Offsets count UTF-16 code units: the parcel emoji before the word is two of them.
    assert _utf16(highlight["text"], match["start"], match["end"]) == word
    # Every word must match, any case, any accents: "CAFE" finds "café"; the other message has none.
    assert [m["id"] for m in next(client.messages.search(stack.peer["id"], "%s CAFE" % word))["data"]] == [hits[0]["id"]]
    tenant = next(client.tenants.search_messages(stack.tenant_id, word, direction="inbound"))["data"]
    assert [(m["identity_id"], m["id"]) for m in tenant] == [(stack.peer["id"], hits[0]["id"])]
    threads = next(client.threads.search(stack.peer["id"], word))["data"]
    assert [t["id"] for t in threads] == [hits[0]["thread_id"]]
    assert word in threads[0]["highlight"]["text"]
    with pytest.raises(PmailError) as caught:
        next(client.messages.search(stack.peer["id"], " ".join("w%d" % i for i in range(17))))
    assert (caught.value.code, caught.value.status) == ("invalid_query", 400)


def test_the_control_plane(stack):
    client = stack.client()
    tenant = stack.tenant_id
    identities = [i for page in client.identities.list(tenant) for i in page["data"]]
    assert stack.agent["id"] in {i["id"] for i in identities}
    created = client.identities.create(
        tenant,
        {"username": "py-%s" % uuid.uuid4().hex[:6], "owner": {"name": "Py", "email": "py@example.com"}},
    )
    assert created.data["status"] == "active"
    assert client.identities.pause(created.data["id"])["status"] == "paused"
    assert client.identities.resume(created.data["id"])["status"] == "active"
    address = "py-%s@example.com" % uuid.uuid4().hex[:6]
    client.suppressions.add(tenant, {"address": address, "reason": "manual"})
    hints = [s["address_hint"] for page in client.suppressions.list(tenant) for s in page["data"]]
    assert hints
    client.suppressions.remove(tenant, address)
    keys = [k for page in client.keys.list() for k in page["data"]]
    assert keys
    assert isinstance(client.domains.list(tenant)["data"], list)
    with pytest.raises(PmailError) as caught:
        client.messages.get(stack.agent["id"], "msg_01aaaaaaaaaaaaaaaaaaaaaaaa")
    assert (caught.value.code, caught.value.status) == ("message_not_found", 404)


def test_events_read_on_in_order(stack):
    client = stack.client()
    pages = client.events.list(limit=5)
    first = next(pages)
    assert first["data"] and all("type" in e for e in first["data"])
