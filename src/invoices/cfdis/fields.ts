import { z } from '@hono/zod-openapi';
import { rfcProblem } from '../../cfdi/rules/rfc.ts';
import { textIssues } from '../../cfdi/text.ts';

/** Field types shared by the CFDI request schemas (the voucher and its complements). */

/**
 * A JSON number as the decimal it stands for: binary floating point turns 10 + 1.37 into 11.370000000000001, so a
 * number within 1e-9 of a value with at most 6 decimals is that value. Anything else keeps its own digits.
 */
function numberText(v: number): string {
  if (!Number.isFinite(v)) return 'x';
  const nearest = Math.abs(v) < 1e21 ? v.toFixed(6) : undefined;
  if (nearest !== undefined && Math.abs(v - Number(nearest)) <= 1e-9) return nearest.replace(/\.?0+$/, '');
  const text = String(v);
  return /e/i.test(text) ? v.toFixed(12).replace(/\.?0+$/, '') : text;
}

/**
 * A JSON number is a double by the time the schema sees it: JSON.parse turns 9007199254740993 into 9007199254740992
 * and 12345678901.1234567 into 12345678901.123457, silently. A double keeps 15 significant digits and every integer
 * up to 2^53 − 1, so a number beyond that may not be what was sent: it must come as a string, digit for digit.
 */
export const SEND_AS_STRING = 'has more digits than a JSON number keeps exactly (15 significant digits, or an integer up to 2^53 − 1): send it as a string';
const lostDigits = (v: number, text: string): boolean => !Number.isSafeInteger(v) && text.replace('.', '').replace(/^0+/, '').length > 15;

/** Money and quantities: a JSON number or a decimal string, non-negative, at most 6 decimals. */
export const Amount = z
  .union([z.number(), z.string()], { message: 'must be a number or a decimal string' })
  .transform((v, ctx) => {
    const plain = typeof v === 'number' ? numberText(v) : v.trim();
    if (!/^\d{1,18}(\.\d{1,6})?$/.test(plain)) {
      ctx.addIssue({ code: 'custom', message: 'must be a non-negative decimal with at most 18 integer digits and 6 decimals' });
      return z.NEVER;
    }
    if (typeof v === 'number' && lostDigits(v, plain)) {
      ctx.addIssue({ code: 'custom', message: SEND_AS_STRING });
      return z.NEVER;
    }
    return plain;
  })
  .openapi({
    type: ['number', 'string'],
    example: '1500.00',
    description:
      'Number or decimal string; at most 6 decimals. A JSON number within 1e-9 of a value with at most 6 decimals is read as that value ' +
      '(11.370000000000001, binary floating-point noise, is 11.37); a string is taken digit for digit. A JSON number with more than 15 ' +
      'significant digits (or an integer above 2^53 − 1) is refused: JSON parsers change such digits, so send it as a string.',
  });

/** An exchange rate or currency equivalence: positive, up to 10 decimals (EquivalenciaDR). */
export const Rate = z
  .union([z.number(), z.string()], { message: 'must be a number or a decimal string' })
  .transform((v, ctx) => {
    const text = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : 'x') : v.trim();
    if (!/^\d{1,12}(\.\d{1,10})?$/.test(text) || /^0*(\.0*)?$/.test(text)) {
      ctx.addIssue({ code: 'custom', message: 'must be a positive decimal with at most 10 decimals' });
      return z.NEVER;
    }
    if (typeof v === 'number' && lostDigits(v, text)) {
      ctx.addIssue({ code: 'custom', message: SEND_AS_STRING });
      return z.NEVER;
    }
    return text;
  })
  .openapi({
    type: ['number', 'string'],
    example: '17.2509',
    description: 'Number or decimal string; a JSON number with more than 15 significant digits is refused (send it as a string)',
  });

/**
 * An integer field. A number past 2^53 − 1 arrives already changed by JSON.parse; the bound says so (zod's own
 * int() would call 9007199254740993 "not an integer").
 */
export const integer = (min: number, max: number) =>
  z
    .number({ message: 'must be an integer' })
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`)
    .refine(Number.isInteger, 'must be an integer')
    .openapi({ type: 'integer' });

/** Free text; which characters it may hold is checked once for the whole request (withTextCheck). */
export const str = (max: number, min = 1) =>
  z
    .string()
    .trim()
    .min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`)
    .max(max, `must be at most ${max} characters`);

/**
 * Adds the one character check (src/cfdi/text.ts) over every string of the body: XML 1.0 characters only, no "|",
 * no control characters (C1 too) except tab/LF/CR in a descripcion, no bidi controls, zero-width or blank-looking characters. It runs even when
 * other fields fail, so all are listed.
 * `except` names top-level fields that never reach the XML (a client's email, an integrator's metadata).
 */
export const withTextCheck = <T extends z.ZodType>(schema: T, except: string[] = []) =>
  schema.superRefine(
    (value, ctx) => {
      const checked =
        except.length && value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).filter(([k]) => !except.includes(k))) : value;
      for (const { path, issue } of textIssues(checked)) ctx.addIssue({ code: 'custom', path, message: issue });
    },
    { when: () => true },
  );

/**
 * A request type checked against the engine's input type (src/cfdi/input.ts): the compiler refuses a schema whose
 * output no longer fits what the engine reads, so the two cannot drift apart.
 */
export type Fits<Request extends EngineInput, EngineInput> = Request;

/** An RFC a complement names (a figura, a subcontratista): upper-cased, its format and check digit as SAT's rules say. */
export const Rfc = z
  .string()
  .trim()
  .toUpperCase()
  .superRefine((rfc, ctx) => {
    const problem = rfcProblem(rfc);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .openapi({ example: 'EKU9003173C9' });

export const code = (pattern: RegExp, message: string, example: string) => z.string().regex(pattern, message).openapi({ example });

/** One tax line of a concepto or of a paid document (Traslado / Retencion). */
export const Tax = z
  .object({
    impuesto: code(/^00[1-3]$/, 'must be 001 (ISR), 002 (IVA) or 003 (IEPS)', '002'),
    tipo_factor: z.enum(['Tasa', 'Cuota', 'Exento'], { message: 'must be Tasa, Cuota or Exento' }),
    tasa_o_cuota: Amount.optional().openapi({ example: '0.160000' }),
    base: Amount.optional().openapi({ description: 'Computed (importe − descuento) when omitted; checked when sent' }),
    importe: Amount.optional().openapi({ description: 'Computed (base × tasa_o_cuota) when omitted; checked against SAT tolerance when sent' }),
  })
  .strict();

/** A stored amount (exact decimal text) as the JSON number the response shows; absent stays absent. */
export const num = (v: string | undefined) => (typeof v === 'string' ? Number(v) : undefined);
