import { htmlToText } from 'html-to-text';
import { Parser } from 'htmlparser2';
import sanitizeHtml from 'sanitize-html';
import { MAX_HTML_NESTING, MAX_HTML_READ_CHARS, MAX_STORED_HTML_BYTES } from '../core/inbound.ts';
import { type Cut, stored } from './stored.ts';

/**
 * A received HTML body as the record keeps it: the part of it that is read (`readableHtml`), made
 * into text (`htmlText`) and sanitised (`sanitise`). Each step costs time linear in what it reads,
 * and what it reads is bounded, so a hostile body of any size and shape costs a fixed amount
 * (docs/guides/receiving.md › Parsing and its caps).
 */

/**
 * The part of `html` the two steps below read: its first MAX_HTML_READ_CHARS characters, cut
 * before a tag, and no further than the first element opened deeper than MAX_HTML_NESTING.
 * htmlparser2 (under html-to-text and sanitize-html) keeps its open elements at the front of an
 * array, so each element it opens costs the depth it is opened at; within the bound the cost is
 * linear. The depth is counted by htmlparser2 itself, with the element closes it infers (an
 * unclosed `<td>` or `<p>` does not nest), and sanitize-html's later htmlparser2 infers at least
 * as many. `cut` tells whether anything was left out.
 */
export function readableHtml(html: string): { value: string; cut: boolean } {
  let end = html.length;
  if (end > MAX_HTML_READ_CHARS) {
    const tag = html.lastIndexOf('<', MAX_HTML_READ_CHARS);
    end = tag > 0 ? tag : MAX_HTML_READ_CHARS;
  }
  const value = end < html.length ? html.slice(0, end) : html;
  const deep = tooDeepAt(value);
  return deep === undefined ? { value, cut: end < html.length } : { value: value.slice(0, deep), cut: true };
}

/** Where the first element opened deeper than MAX_HTML_NESTING starts, if any (one pass, stopped there). */
function tooDeepAt(html: string): number | undefined {
  let depth = 0;
  let at: number | undefined;
  const parser = new Parser(
    {
      onopentag() {
        depth++;
        if (depth > MAX_HTML_NESTING && at === undefined) {
          at = parser.startIndex;
          parser.pause();
        }
      },
      onclosetag() {
        depth--;
      },
    },
    { decodeEntities: false },
  );
  parser.end(html);
  return at;
}

/**
 * The text of an HTML body, by html-to-text, without word wrapping: its wrapping splits a long run
 * of inline elements again each time the run grows (time quadratic in the run), and the record keeps
 * the sender's lines as they are anyway.
 */
export function htmlText(html: string): string {
  return htmlToText(html, { wordwrap: false, limits: { maxDepth: MAX_HTML_NESTING + 1 } });
}

/**
 * HTML as a mail client may show it: formatting, tables, links and images kept; scripts, styles
 * sheets, event handlers, forms, frames and `javascript:` links removed (sanitize-html's allow-list).
 */
export function sanitise(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'font', 'center', 'span', 'h1', 'h2'],
    allowedAttributes: {
      a: ['href', 'name', 'title'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      font: ['color', 'size', 'face'],
      td: ['colspan', 'rowspan', 'align', 'valign', 'width', 'bgcolor'],
      th: ['colspan', 'rowspan', 'align', 'valign', 'width', 'bgcolor'],
      table: ['width', 'align', 'border', 'cellpadding', 'cellspacing', 'bgcolor'],
      '*': ['dir', 'lang'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'cid', 'data'] },
    allowProtocolRelative: false,
  });
}

/** An HTML body as a record keeps it, received or sent: the part read, sanitised, cut to MAX_STORED_HTML_BYTES. */
export function storedHtml(html: string): Cut {
  const source = readableHtml(html);
  return stored(sanitise(source.value), MAX_STORED_HTML_BYTES, source.cut);
}
