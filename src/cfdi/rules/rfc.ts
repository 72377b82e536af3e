/**
 * What can be known of an RFC without SAT's list (l_RFC): its shape (t_RFC), that its date part is a date, and its
 * check digit. One place for every RFC a CFDI carries (receptor, clients, a cuenta de terceros, payments, nómina).
 */

import { T_RFC } from '../patterns.ts';

export const GENERIC_RFCS = new Set(['XAXX010101000', 'XEXX010101000']);
/** The fixed RFC of a foreign third party in ACuentaTerceros (CFDI40189): SAT's, not a taxpayer's. */
const RFC_EXTRANJERO_A_CUENTA_TERCEROS = 'EXT990101NI1';

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The YYMMDD part is a real date in either century (29 February only when 19YY or 20YY is a leap year). */
function hasRealDate(rfc: string): boolean {
  const digits = rfc.slice(rfc.length - 9, rfc.length - 3);
  const [yy, mm, dd] = [0, 2, 4].map((i) => Number(digits.slice(i, i + 2))) as [number, number, number];
  return [1900 + yy, 2000 + yy].some((year) => dd <= daysIn(year, mm));
}

/** Why `rfc` cannot be an RFC, or undefined: not t_RFC, or a date part that is not a date (310231). */
export function rfcProblem(rfc: string): string | undefined {
  if (!T_RFC.test(rfc)) return 'is not a valid RFC (12 characters persona moral, 13 persona física, or XAXX010101000 / XEXX010101000)';
  if (!hasRealDate(rfc)) return `is not a valid RFC: ${rfc.slice(rfc.length - 9, rfc.length - 3)} (YYMMDD) is not a date`;
  return undefined;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ Ñ';

/** SAT's check digit: mod 11 over the first 12 characters (a persona moral's padded with a leading space); 11 → 0, 10 → A. */
export function rfcCheckDigit(rfc: string): string {
  const base = rfc.padStart(13, ' ').slice(0, 12);
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += ALPHABET.indexOf(base[i]!) * (13 - i);
  const digit = 11 - (sum % 11);
  return digit === 11 ? '0' : digit === 10 ? 'A' : String(digit);
}

/**
 * A warning when a well-formed, non-generic RFC fails its check digit: a PAC refuses it, as it is not in SAT's list
 * (CFDI40143). Only a warning: some RFCs SAT issued long ago fail the digit and are still valid.
 */
export function rfcCheckDigitWarning(rfc: string, field: string): string | undefined {
  if (GENERIC_RFCS.has(rfc) || rfc === RFC_EXTRANJERO_A_CUENTA_TERCEROS || rfcProblem(rfc)) return undefined;
  const expected = rfcCheckDigit(rfc);
  if (rfc.at(-1) === expected) return undefined;
  return `${field}: the check digit of ${rfc} should be ${expected}; unless it is one of the few older RFCs that fail it, it is not in SAT's list of RFCs and a PAC refuses it (CFDI40143)`;
}
