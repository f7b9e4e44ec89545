import { receivedEvent } from '../functions/inbound/inbound-record.ts';
import { changeMessageLabels, changeThreadLabels } from '../functions/labels/change-labels.ts';
import { storeInbound } from '../functions/store/inbound.store.ts';
import { machineLine } from './env.ts';
import { startBenchStack } from './stack.ts';

/**
 * `npm run bench:labels`: the write units of one change of labels (docs/guides/receiving.md ›
 * Labels), as DynamoDB bills them: each item of its transaction read before and after
 * (CapacityMeter.exactTransactions) and billed 2 × ⌈size / 1 KB⌉, the feed counter's `ADD` as
 * reported. The message stored beside it is ~300 KB: a change that rewrote it would cost ~600 write
 * units; a change reads it once (consistently: whether a key may see it, its send-time labels).
 */
const CHANGES = 20;

async function main() {
  const stack = await startBenchStack({ identities: ['labels'] });
  try {
    const { runtime, tenant, meter } = stack;
    const identity = tenant.identities[0]!;
    const now = Date.now();
    const id = `msg_${runtime.deps.newId()}`;
    const message = {
      id,
      tenant_id: tenant.tenantId,
      identity_id: identity.id,
      thread_id: `thr_${id.slice(4)}`,
      direction: 'inbound',
      status: 'received',
      from: { address: 'customer@outside.example' },
      to: [{ address: identity.address }],
      cc: [],
      bcc: [],
      reply_to: [],
      subject: 'a big one',
      metadata: { pad: 'x'.repeat(300_000) },
      kind: 'transactional',
      labels: [],
      flags: [],
      rfc_message_id: `<${id}@outside.example>`,
      raw_key: '',
      raw_size: 0,
      created_at: now,
      updated_at: now,
      version: 1,
    } as const;
    await storeInbound(runtime.deps.db, {
      message: { ...message, to: [...message.to], labels: [], flags: [], cc: [], bcc: [], reply_to: [] },
      dedupeKey: `bench-${id}`,
      event: receivedEvent(
        { ...message, to: [...message.to], labels: [], flags: [], cc: [], bcc: [], reply_to: [] },
        now,
      ),
      routedTo: identity.address,
      snippet: '',
      now,
    });
    meter.exactTransactions = true;
    const key = { scopes: ['messages:write'] };
    const request = { identityId: identity.id, tenantId: tenant.tenantId, key };
    for (const [stage, change] of [
      [
        'message',
        (i: number) =>
          changeMessageLabels(runtime.deps, {
            ...request,
            messageId: id,
            change: { add: [`l${i % 15}`], remove: [`l${(i + 5) % 15}`] },
          }),
      ],
      [
        'thread',
        (i: number) =>
          changeThreadLabels(runtime.deps, {
            ...request,
            threadId: `thr_${id.slice(4)}`,
            change: { add: [`l${i % 15}`], remove: [`l${(i + 5) % 15}`] },
          }),
      ],
    ] as const) {
      stack.setPhase(stage);
      for (let i = 0; i < CHANGES; i++) await change(i);
    }
    console.log(machineLine());
    console.log(`one change of labels, ${CHANGES} changes each (write units as billed; reads as reported)`);
    for (const t of meter.collect().filter((x) => x.stage !== 'setup')) {
      const items = [...t.itemUnits].map(
        ([p, u]) => `${p} ${(u.units / u.n).toFixed(1)} WCU ×2 (${Math.round(u.bytes / u.n)} B)`,
      );
      const per = (t.kind === 'write' ? t.corrected : t.units) / CHANGES;
      console.log(
        `${t.stage.padEnd(8)} ${t.label.slice(0, 60).padEnd(60)} ${t.kind.padEnd(5)} ${per.toFixed(2)} per change${items.length ? `  [${items.join('; ')}]` : ''}`,
      );
    }
  } finally {
    await stack.close();
  }
}

await main();
