import { EXIT } from './client.ts';
import { apiFor, type Ctx, identityOf, profileOf } from './context.ts';
import { out, printJson, terminalSafe } from './io.ts';

/**
 * `pmail label <message-id|thread-id> --add a,b --remove c` (docs/guides/receiving.md › Labels):
 * one change of a message's or a conversation's labels (by the id's prefix), printing the labels
 * after it. A change is idempotent, so running it again changes nothing more. Labels set at send
 * time can be any text: printed through terminalSafe.
 */
const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((l) => l.trim())
    .filter(Boolean);

export async function labelCommand(ctx: Ctx): Promise<number> {
  const profile = profileOf(ctx);
  const api = apiFor(ctx, profile);
  const identity = identityOf(profile);
  const id = ctx.args[0];
  const change = { add: list(ctx.opts.add), remove: list(ctx.opts.remove) };
  const answer = id.startsWith('thr_')
    ? await api.threads.label(identity, id, change)
    : await api.messages.label(identity, id, change);
  if (ctx.opts.json) printJson(answer);
  else
    out(
      `${id}: ${answer.labels.length ? answer.labels.map((l) => terminalSafe(l)).join(', ') : '(no labels)'}`,
    );
  return EXIT.ok;
}
