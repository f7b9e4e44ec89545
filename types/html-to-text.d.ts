/** html-to-text ships no types: the one call functions/inbound/html.ts makes. */
declare module 'html-to-text' {
  export function htmlToText(
    html: string,
    options?: { wordwrap?: number | false | null; limits?: { maxDepth?: number } },
  ): string;
}
