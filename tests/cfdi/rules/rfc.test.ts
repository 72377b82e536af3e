import { describe, expect, test } from 'bun:test';
import { rfcCheckDigit, rfcCheckDigitWarning, rfcProblem } from '../../../src/cfdi/rules/rfc.ts';

/** Issue 18 (4): the date part of an RFC must be a date; the check digit is SAT's mod 11. */
describe('RFC', () => {
  test("SAT's test RFCs (the CSD fixtures and the samples) pass the date and the check digit", () => {
    for (const rfc of [
      'EKU9003173C9',
      'ICV060329BY0',
      'FUNK671228PH6',
      'CVD110412TF6',
      'BMI9704113PA',
      'MODC980924HK1',
      'OÑO120726RX3',
      'SAT970701NN3',
      'URE180429TM6',
      'WATM640917J45',
      'VADA800927DJ3',
      'COSC8001137NA',
    ]) {
      expect(rfcProblem(rfc)).toBeUndefined();
      expect(rfcCheckDigit(rfc)).toBe(rfc.at(-1)!);
      expect(rfcCheckDigitWarning(rfc, 'receptor.rfc')).toBeUndefined();
    }
  });

  test('a date part that is not a date is refused; 29 February only in a leap year of either century', () => {
    expect(rfcProblem('ICV060231BY0')).toContain('060231 (YYMMDD) is not a date');
    expect(rfcProblem('FUNK670431PH6')).toContain('not a date');
    expect(rfcProblem('ICV000229BY0')).toBeUndefined(); // 2000
    expect(rfcProblem('ICV040229BY0')).toBeUndefined(); // 1904 / 2004
    expect(rfcProblem('ICV010229BY0')).toContain('not a date');
    expect(rfcProblem('XAXX010101000')).toBeUndefined();
    expect(rfcProblem('ICV06032BY0')).toContain('is not a valid RFC');
  });

  test('a wrong check digit is a warning naming the field and CFDI40143; the generic RFCs and EXT990101NI1 are not checked', () => {
    expect(rfcCheckDigitWarning('ICV060329BY1', 'receptor.rfc')).toMatch(/^receptor\.rfc: the check digit of ICV060329BY1 should be 0.*CFDI40143/);
    expect(rfcCheckDigit('ICV060329BYA')).toBe('0');
    for (const rfc of ['XAXX010101000', 'XEXX010101000', 'EXT990101NI1']) expect(rfcCheckDigitWarning(rfc, 'x')).toBeUndefined();
  });
});
