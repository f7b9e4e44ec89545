/**
 * Where a reply's quoted history starts, for the layouts email-reply-parser misses
 * (docs/guides/receiving.md › The new text), pure and linear in the text: functions/inbound/extract.ts
 * cuts the text there before the parser reads it for `>` quotes, its own headers and the signature.
 *
 * - **A header block** as Outlook, Windows Mail, Hotmail and others write above the message they
 *   quote: three or more consecutive lines, each a label and a colon (`From:`, `Sent:`, `To:`,
 *   `Subject:`, in the client's language, in any order, `*From:*` as a text rendering of bold
 *   ones), one of them the sender's and one the date's or the subject's — with or without an
 *   address, under a line of underscores or dashes or not. One `From:` line alone is new text.
 * - **An attribution line** ("On … wrote:" and its kin): a line, or two when the client wrapped
 *   it, ending in a colon, that names the sender by an address or a date with a time, and either
 *   says "wrote" in one of the languages below or has both the address and the year (Gmail's
 *   Russian, Japanese and Korean lines have no verb).
 *
 * A cut is taken only below new text: a reply written under the quote (bottom posting) is left to
 * the parser, which keeps what follows the quote.
 */

const label = (names: readonly string[]) => names.map((n) => n.replace(/ /g, '\\s')).join('|');

/** A header block's sender label, by language. */
const FROM = [
  'From',
  'Von',
  'De',
  'Da',
  'Van',
  'Från',
  'Fra',
  'Od',
  'От',
  'Від',
  'Kimden',
  'Lähettäjä',
  'Feladó',
  'Από',
  'Odesílatel',
  '差出人',
  '发件人',
  '寄件者',
  '보낸 사람',
];
/** Its date label. */
const DATE = [
  'Sent',
  'Date',
  'Gesendet',
  'Datum',
  'Envoyé',
  'Enviado',
  'Enviada em',
  'Enviado el',
  'Fecha',
  'Inviato',
  'Data',
  'Verzonden',
  'Skickat',
  'Sendt',
  'Wysłane',
  'Отправлено',
  'Дата',
  'Надіслано',
  'Gönderildi',
  'Tarih',
  'Lähetetty',
  'Päivämäärä',
  'Elküldve',
  'Dátum',
  'Στάλθηκε',
  'Ημερομηνία',
  'Odesláno',
  '送信日時',
  '日付',
  '发送时间',
  '日期',
  '寄件日期',
  '보낸 날짜',
];
/** Its recipients' labels. */
const TO = [
  'To',
  'Cc',
  'An',
  'À',
  'A',
  'Para',
  'Aan',
  'Till',
  'Til',
  'Do',
  'Кому',
  'Копия',
  'Kime',
  'Vastaanottaja',
  'Címzett',
  'Προς',
  'Komu',
  '宛先',
  '收件人',
  '抄送',
  '받는 사람',
];
/** Its subject label. */
const SUBJECT = [
  'Subject',
  'Betreff',
  'Objet',
  'Asunto',
  'Oggetto',
  'Assunto',
  'Onderwerp',
  'Ämne',
  'Emne',
  'Temat',
  'Тема',
  'Konu',
  'Aihe',
  'Tárgy',
  'Θέμα',
  'Předmět',
  '件名',
  '主题',
  '主旨',
  '제목',
];
/** The verbs of attribution lines, by language. */
const WROTE = [
  'wrote',
  'a écrit',
  'schrieb',
  'escribió',
  'scritto',
  'escreveu',
  'schreef',
  'skrev',
  'napisał',
  'napisała',
  'napsal',
  'napsala',
  'kirjoitti',
  'írta',
  'пишет',
  'написал',
  'написала',
  'пише',
  'написав',
  'yazdı',
  'έγραψε',
  '写道',
  '寫道',
  '작성',
  'のメッセージ',
];

/** `*From:*`, `From:`, `From :` … : which of the four a line's label is, if any. */
const LABEL_LINE = new RegExp(
  `^\\s*\\*?(?:(${label(FROM)})|(${label(DATE)})|(${label(TO)})|(${label(SUBJECT)}))\\s?[:：]\\*?(?:\\s|$)`,
  'i',
);
const SEPARATOR = /^\s*(?:[_]{5,}|[-=*]{5,}|-+\s*[\p{L} ]{3,40}\s*-+)\s*$/u;
const ENDS_WITH_COLON = /[:：]\s*$/;
const VERB = new RegExp(WROTE.join('|'), 'iu');
const ADDRESS = /[<(]?[^\s<>()@"]+@[^\s<>()@"]+\.[^\s<>()@"]+[>)]?/;
const YEAR = /(?:^|\D)(?:19|20)\d\d(?:\D|$)/;
const TIME = /\d{1,2}[:.]\d\d/;

type Kind = 'from' | 'date' | 'to' | 'subject';
function labelOf(line: string): Kind | undefined {
  const m = LABEL_LINE.exec(line);
  if (!m) return undefined;
  return m[1] ? 'from' : m[2] ? 'date' : m[3] ? 'to' : 'subject';
}

/** The header block starting at `i` (its label lines counted), or undefined when there is none. */
function headerBlockAt(lines: readonly string[], i: number): number | undefined {
  const kinds = new Set<Kind>();
  let n = 0;
  for (let j = i; j < lines.length && j < i + 8; j++) {
    const kind = labelOf(lines[j]);
    if (!kind) break;
    kinds.add(kind);
    n++;
  }
  return n >= 3 && kinds.has('from') && (kinds.has('date') || kinds.has('subject')) ? n : undefined;
}

/** Whether `text` reads as an attribution line: a colon at its end, an address or a dated time, a verb or an address with its year. */
function attribution(text: string): boolean {
  if (!ENDS_WITH_COLON.test(text) || text.length > 400) return false;
  const address = text.includes('@') && ADDRESS.test(text);
  const dated = YEAR.test(text) && TIME.test(text);
  if (!address && !dated) return false;
  return VERB.test(text) || (address && YEAR.test(text));
}

/**
 * Whether line `i` is an attribution line, alone or with the next line when the client wrapped it
 * there (the next line is then no attribution by itself: a line of new text above one is not part of it).
 */
function attributionAt(lines: readonly string[], i: number): boolean {
  const one = lines[i];
  if (one.trimStart().startsWith('>') || one.trim() === '') return false;
  if (ENDS_WITH_COLON.test(one)) return attribution(one);
  const next = lines[i + 1] ?? '';
  return !attribution(next) && attribution(`${one} ${next}`);
}

const isNewText = (line: string) => line.trim() !== '' && !line.trimStart().startsWith('>');

/**
 * The index of the first line of quoted history in `lines` that a header block or an attribution
 * line begins (the separator line above a header block included), or undefined when there is none
 * below new text. One pass: each line is looked at with at most the eight after it.
 */
export function quotedHistoryStart(lines: readonly string[]): number | undefined {
  // Whether new text comes before line i - 1, and before line i.
  let newBeforePrevious = false;
  let newAbove = false;
  for (let i = 0; i < lines.length; i++) {
    const block = headerBlockAt(lines, i) !== undefined;
    if (block || attributionAt(lines, i)) {
      const start = block ? withRuleAbove(lines, i) : i > 0 && wrapsInto(lines[i - 1]) ? i - 1 : i;
      // Nothing new above: the block or line is left to the parser (a reply under the quote).
      const above = start === i - 1 ? newBeforePrevious : newAbove;
      return above ? start : undefined;
    }
    newBeforePrevious = newAbove;
    newAbove ||= isNewText(lines[i]);
  }
  return undefined;
}

/** A header block's start with the blank lines and the rule (underscores, dashes) above it. */
function withRuleAbove(lines: readonly string[], i: number): number {
  let start = i;
  while (start > 0 && (lines[start - 1].trim() === '' || SEPARATOR.test(lines[start - 1]))) start--;
  return start;
}

/**
 * The first half of an attribution the client wrapped, whose second half reads as one alone
 * ("On Thu, Dec 3, 2026 at 10:00 AM Name <" above "name@example.com> wrote:"): it ends in an open
 * bracket, or holds a date with its time and ends no sentence.
 */
const wrapsInto = (previous: string) =>
  isNewText(previous) &&
  (/[<(]\s*$/.test(previous) ||
    (YEAR.test(previous) && TIME.test(previous) && !/[.!?。！？]\s*$/.test(previous)));

/** A client's device line under the new text ("Sent from my iPhone" and its kin), when it is one: short, a line of its own. */
const DEVICE =
  /^(?:sent from|sent via|get outlook for|envoyé de mon|envoyé depuis|von meinem .{1,30} gesendet|gesendet von|enviado desde|enviado do meu|inviato da|verzonden (?:vanaf|met)|verstuurd vanaf|отправлено с|отправлено из|надіслано з|wysłane z|skickat från|sendt fra)(?=\s|$)/iu;
export const isDeviceLine = (line: string): boolean => {
  const t = line.trim();
  return t.length <= 60 && DEVICE.test(t) && !/[,;:]/.test(t.replace(/<[^>]*>|\[[^\]]*\]/g, ''));
};
