import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../functions/core/canonical-json.ts';
import { sendFingerprint, sendTarget, sha256Hex } from '../../functions/core/fingerprint.ts';

describe('canonical JSON (the Idempotency-Key’s body fingerprint)', () => {
  it('sorts keys at every level and drops insignificant whitespace', () => {
    expect(canonicalJson(JSON.parse('{ "b": 1, "a": { "d": [3, {"z": null, "y": true}], "c": "x" } }'))).toBe(
      '{"a":{"c":"x","d":[3,{"y":true,"z":null}]},"b":1}',
    );
  });

  it('sorts keys by UTF-8 bytes, not UTF-16 code units', () => {
    // U+FF5E (EF BD 9E) sorts before U+1F600 (F0 9F 98 80) in UTF-8, after it in UTF-16.
    expect(canonicalJson({ '😀': 1, '～': 2 })).toBe('{"～":2,"😀":1}');
  });

  it('keeps arrays in order and writes minimal string escapes', () => {
    expect(canonicalJson(['b', 'a', 'é/"\\\n\u0001'])).toBe('["b","a","é/\\"\\\\\\n\\u0001"]');
  });
});

describe('sendFingerprint', () => {
  const body = { to: ['a@example.com'], subject: 'Hi', text: 'x' };

  it('ignores key order and whitespace but no change of value', () => {
    const same = JSON.parse('{"text":"x",  "subject":"Hi","to":["a@example.com"]}');
    const f = sendFingerprint('send', 'idn_1', body);
    expect(sendFingerprint('send', 'idn_1', same)).toBe(f);
    expect(sendFingerprint('send', 'idn_1', { ...body, text: 'x ' })).not.toBe(f);
    expect(sendFingerprint('send', 'idn_1', { ...body, to: ['A@example.com'] })).not.toBe(f);
  });

  it('binds the operation and the target', () => {
    const f = sendFingerprint('send', 'idn_1', body);
    expect(sendFingerprint('send', 'idn_2', body)).not.toBe(f);
    expect(sendFingerprint('reply', sendTarget('reply', 'idn_1', 'msg_1'), body)).not.toBe(
      sendFingerprint('forward', sendTarget('forward', 'idn_1', 'msg_1'), body),
    );
    expect(sendTarget('reply_all', 'idn_1', 'msg_9')).toBe('idn_1/msg_9');
  });

  it('is hex(sha256) of the canonical document {body, operation, target}', () => {
    expect(sendFingerprint('send', 'idn_1', { text: 'x' })).toBe(
      sha256Hex('{"body":{"text":"x"},"operation":"send","target":"idn_1"}'),
    );
  });
});
