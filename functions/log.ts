/**
 * A small structured logger (one JSON line per entry, CloudWatch-friendly). Callers pass ids,
 * codes and counts — never message bodies, template variables, credentials or full addresses
 * (mask them with core/recipients.maskAddress).
 */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function jsonLogger(
  base: Record<string, unknown> = {},
  sink: (line: string) => void = console.log,
): Logger {
  const write =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      sink(JSON.stringify({ level, msg, ...base, ...fields, time: new Date().toISOString() }));
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

export function errorFields(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { error: err.name, error_message: err.message.slice(0, 300) };
  return { error: String(err).slice(0, 300) };
}
