import { z } from '@hono/zod-openapi';

/** Field types shared by the CFDI request schemas (the voucher and its complements). */

/** Money and quantities: a JSON number or a decimal string, non-negative, at most 6 decimals. */
export const Amount = z
  .union([z.number(), z.string()], { message: 'must be a number or a decimal string' })
  .transform((v, ctx) => {
    const text = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : 'x') : v.trim();
    const plain = /e/i.test(text) ? Number(text).toFixed(12).replace(/\.?0+$/, '') : text;
    if (!/^\d{1,18}(\.\d{1,6})?$/.test(plain)) {
      ctx.addIssue({ code: 'custom', message: 'must be a non-negative decimal with at most 18 integer digits and 6 decimals' });
      return z.NEVER;
    }
    return plain;
  })
  .openapi({ type: ['number', 'string'], example: '1500.00', description: 'Number or decimal string; at most 6 decimals' });

/** An exchange rate or currency equivalence: positive, up to 10 decimals (EquivalenciaDR). */
export const Rate = z
  .union([z.number(), z.string()], { message: 'must be a number or a decimal string' })
  .transform((v, ctx) => {
    const text = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : 'x') : v.trim();
    if (!/^\d{1,12}(\.\d{1,10})?$/.test(text) || /^0*(\.0*)?$/.test(text)) {
      ctx.addIssue({ code: 'custom', message: 'must be a positive decimal with at most 10 decimals' });
      return z.NEVER;
    }
    return text;
  })
  .openapi({ type: ['number', 'string'], example: '17.2509', description: 'Number or decimal string' });

export const str = (max: number, min = 1) =>
  z
    .string()
    .trim()
    .min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`)
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s.isWellFormed() && !/[\u0000-\u001f\u007f|]/.test(s), 'must not contain "|" or control characters');
export const code = (pattern: RegExp, message: string, example: string) => z.string().regex(pattern, message).openapi({ example });

