import { Dec } from '../decimal.ts';
import type { Fail } from '../input.ts';

/**
 * An amount of the request as exact decimal, or undefined (reported): a decimal number, not negative, with at most
 * `maxDecimals` significant decimals (tdCFDI.xsd's t_ImporteMXN: 2; t_Importe: 6). Written with at least two.
 */
export function money(field: string, text: string | undefined, fail: Fail, maxDecimals = 2): Dec | undefined {
  if (text === undefined) return undefined;
  let d: Dec;
  try {
    d = Dec.parse(text);
  } catch {
    fail(field, `must be a decimal number, not ${JSON.stringify(text)}`);
    return undefined;
  }
  if (d.isNegative()) {
    fail(field, `must not be negative: ${d.toString()}`);
    return undefined;
  }
  const significant = d.trim();
  if (significant.decimals > maxDecimals) {
    fail(field, `must have at most ${maxDecimals} decimals: ${d.toString()}`);
    return undefined;
  }
  return significant.decimals < 2 ? significant.round(2) : significant;
}

/** A rate as a fraction (0.10 for 10 %), between 0 and 1, or undefined (reported). */
export function fraction(field: string, text: string | undefined, fail: Fail, maxDecimals = 6): Dec | undefined {
  const d = money(field, text, fail, maxDecimals);
  if (d && d.cmp(Dec.parse('1')) > 0) {
    fail(field, `is a fraction (0.10 for 10 %): at most 1, not ${d.toString()}`);
    return undefined;
  }
  return d;
}
