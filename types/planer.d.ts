/** planer ships no types: the one call bench/reply-text.ts makes. */
declare module 'planer' {
  const planer: { extractFrom(body: string, contentType: 'text/plain' | 'text/html', doc?: unknown): string };
  export default planer;
}
