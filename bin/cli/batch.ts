import { readFileSync } from 'node:fs';
import { canonicalJson } from '../../functions/core/canonical-json.ts';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import {
  MAX_BATCH_BODY_BYTES,
  MAX_BATCH_MESSAGES,
  MAX_BATCH_RECIPIENTS,
} from '../../functions/core/limits.ts';
import type { BatchResult, SendBatchMessage } from '../../packages/client/src/index.ts';
import { CliError, EXIT, envelopeOf, exitOfStatus } from './client.ts';
import { apiFor, type Ctx, identityOf, profileOf } from './context.ts';
import { err, out, printJson, terminalSafe } from './io.ts';

/** The flags of a single send that a batch file takes the place of. */
const SINGLE_FLAGS = ['to', 'cc', 'bcc', 'subject', 'text', 'html', 'template', 'variables', 'sendAt'];

/**
 * `pmail send --batch file.jsonl` (`-`: stdin): one send body per line, each with its
 * `idempotency_key` or one derived from the line's content (so running the same file again never
 * sends a line twice), sent as batches of at most 100 messages, 1,000 recipients and 4 MiB
 * (POST …/messages/batch, through @pmail/client's sendBatch). One line per message; exit 0 when
 * every message was accepted, else the exit code of the first refusal (docs/guides/cli.md).
 */
export async function sendBatchCommand(ctx: Ctx): Promise<number> {
  const o = ctx.opts;
  const given = SINGLE_FLAGS.filter((f) => o[f] !== undefined);
  if (given.length > 0 || o.idempotencyKey !== undefined || o.wait)
    throw new CliError(
      EXIT.usage,
      '--batch takes each message from its file: no --to, --subject, --text, --wait …',
    );
  const profile = profileOf(ctx);
  const identity = identityOf(profile);
  const { messages, derived } = readBatchFile(o.batch, (file) =>
    readFileSync(file === '-' ? 0 : file, 'utf8'),
  );
  if (derived > 0)
    err(
      `${derived} line(s) without idempotency_key: each gets one made from its content, so running this file again sends none of them twice (a line sent in the last 30 days is a replay: give it a key of its own to send it again)`,
    );
  const api = apiFor(ctx, profile);
  const results: BatchResult[] = [];
  for (const chunk of chunksOf(messages)) results.push(...(await api.messages.sendBatch(identity, chunk)));
  if (o.json) printJson({ data: results.map(jsonOf) });
  else for (const [i, r] of results.entries()) out(lineOf(r, i + 1));
  const failed = results.find((r) => r.error);
  if (!o.json) out(`${results.length - results.filter((r) => r.error).length} of ${results.length} accepted`);
  return failed ? exitOfStatus(failed.status, true) : EXIT.ok;
}

/** The file's messages, one JSON object per non-empty line; a key made from a line that has none. */
export function readBatchFile(
  file: string,
  read: (file: string) => string,
): { messages: SendBatchMessage[]; derived: number } {
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    throw new CliError(EXIT.usage, `cannot read ${file}: ${(e as Error).message}`);
  }
  let derived = 0;
  const messages: SendBatchMessage[] = [];
  const lineOfKey = new Map<string, number>();
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    let m: unknown;
    try {
      m = JSON.parse(line);
    } catch {
      throw new CliError(EXIT.usage, `${file}:${i + 1}: not a JSON object`);
    }
    if (!m || typeof m !== 'object' || Array.isArray(m))
      throw new CliError(EXIT.usage, `${file}:${i + 1}: not a JSON object`);
    const body = m as SendBatchMessage;
    if (body.idempotency_key === undefined) derived++;
    const key = body.idempotency_key ?? `pmail-batch-${sha256Hex(canonicalJson(body)).slice(0, 32)}`;
    const first = lineOfKey.get(key);
    if (first !== undefined)
      throw new CliError(
        EXIT.usage,
        `${file}:${i + 1}: the same ${body.idempotency_key === undefined ? 'email' : 'idempotency_key'} as line ${first}: give each line an idempotency_key of its own to send both`,
      );
    lineOfKey.set(key, i + 1);
    messages.push({ ...body, idempotency_key: key });
  }
  if (messages.length === 0) throw new CliError(EXIT.usage, `${file} has no messages`);
  return { messages, derived };
}

/** Batches within the API's limits: at most 100 messages, 1,000 recipients and 4 MiB each. */
export function chunksOf(messages: SendBatchMessage[]): SendBatchMessage[][] {
  const chunks: SendBatchMessage[][] = [];
  let chunk: SendBatchMessage[] = [];
  let recipients = 0;
  let bytes = 0;
  for (const m of messages) {
    const fields = m as { to?: unknown[]; cc?: unknown[]; bcc?: unknown[] };
    const r = (fields.to?.length ?? 0) + (fields.cc?.length ?? 0) + (fields.bcc?.length ?? 0);
    const b = Buffer.byteLength(JSON.stringify(m)) + 1;
    const full =
      chunk.length >= MAX_BATCH_MESSAGES ||
      recipients + r > MAX_BATCH_RECIPIENTS ||
      bytes + b > MAX_BATCH_BODY_BYTES - 64;
    if (full && chunk.length > 0) {
      chunks.push(chunk);
      chunk = [];
      recipients = 0;
      bytes = 0;
    }
    chunk.push(m);
    recipients += r;
    bytes += b;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

function lineOf(r: BatchResult, n: number): string {
  if (r.error)
    return `#${n}: error ${r.error.code}: ${terminalSafe(r.error.message)} (key ${r.idempotencyKey})`;
  const m = r.message!;
  const how = m.deduplicated ? 'replayed' : 'accepted';
  return `#${n}: ${how} ${m.id} ${m.status} (key ${r.idempotencyKey})`;
}

function jsonOf(r: BatchResult) {
  return {
    idempotency_key: r.idempotencyKey,
    status: r.status,
    ...(r.message ? { message: r.message } : {}),
    ...(r.error ? envelopeOf(r.error) : {}),
  };
}
