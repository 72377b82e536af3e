import { fieldPath, type FieldProblem } from './input.ts';

/**
 * The characters a CFDI's text may carry. Every string of a request ends up in an XML attribute and in the cadena
 * original, so one walk over the whole request checks them all (every voucher type and complement, and fields
 * added later): a character outside XML 1.0's Char production makes the document not well-formed, `|` separates
 * the cadena's fields, and control characters are refused except where SAT's schema collapses whitespace.
 * Invisible bidi and zero-width characters are refused too: they are valid XML, but they make the printed or
 * displayed text read differently from the stored one (a reversed RFC or amount in a description, a hidden space).
 * So are C1 controls, the soft hyphen, the Unicode line separators and the Hangul fillers, for the same reason.
 */

/** XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]. */
const isXmlChar = (cp: number) =>
  cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);

/** Fields whose XSD type collapses whitespace (cfdi:Concepto/@Descripcion): tab, LF and CR are allowed there. */
const WHITESPACE_COLLAPSED = new Set(['descripcion']);

/**
 * Bidi controls, zero-width and blank-looking characters, by name. ZWJ (U+200D) is among them: it only joins emoji
 * sequences, which fiscal text does not need; a plain emoji (one code point) is accepted. U+2028/U+2029 break the
 * line where the text is shown (even in descripcion, whose schema collapses only tab, LF and CR); the Hangul fillers
 * print as blanks that are not spaces.
 */
const INVISIBLE: Record<number, string> = {
  0x00ad: 'SOFT HYPHEN',
  0x061c: 'ARABIC LETTER MARK',
  0x115f: 'HANGUL CHOSEONG FILLER',
  0x1160: 'HANGUL JUNGSEONG FILLER',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2061: 'FUNCTION APPLICATION',
  0x2062: 'INVISIBLE TIMES',
  0x2063: 'INVISIBLE SEPARATOR',
  0x2064: 'INVISIBLE PLUS',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0x3164: 'HANGUL FILLER',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE (byte order mark)',
  0xffa0: 'HALFWIDTH HANGUL FILLER',
};

const codePointName = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** The first problem of one string, or undefined. Iterating by code point leaves lone surrogates as themselves. */
export function textIssue(s: string, allowWhitespace = false): string | undefined {
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) return `contains ${codePointName(cp)} (an unpaired surrogate), which XML 1.0 does not allow`;
    if (!isXmlChar(cp)) return `contains ${codePointName(cp)}, which XML 1.0 does not allow`;
    // C1 (U+0080–U+009F) too: U+0085 is a line break to some readers, and none of them is text.
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
      if (!allowWhitespace || cp >= 0x7f) return `contains the control character ${codePointName(cp)}`;
    }
    const invisible = INVISIBLE[cp];
    if (invisible)
      return `contains ${codePointName(cp)} ${invisible}, an invisible, bidi, zero-width or line-breaking character that makes the text read differently from what is stored`;
    if (ch === '|') return 'must not contain "|" (it separates the fields of the cadena original)';
  }
  return undefined;
}

/** Every string under `value` with a problem, with its path (object keys are not checked: the schemas refuse unknown ones). */
export function textIssues(value: unknown): { path: (string | number)[]; issue: string }[] {
  const out: { path: (string | number)[]; issue: string }[] = [];
  const visit = (v: unknown, path: (string | number)[], key: string | undefined) => {
    if (typeof v === 'string') {
      const issue = textIssue(v, key !== undefined && WHITESPACE_COLLAPSED.has(key));
      if (issue) out.push({ path, issue });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, [...path, i], key));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) visit(item, [...path, k], k);
    }
  };
  visit(value, [], undefined);
  return out;
}

/** The same as error details, fields named as users write them (`conceptos[0].descripcion`) under `prefix`. */
export const textProblems = (value: unknown, prefix = ''): FieldProblem[] =>
  textIssues(value).map(({ path, issue }) => ({ field: [prefix, fieldPath(path)].filter(Boolean).join('.') || 'body', issue }));
