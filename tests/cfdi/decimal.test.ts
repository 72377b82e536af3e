import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { Dec } from '../../src/cfdi/decimal.ts';

describe('Dec', () => {
  test('parses strings and numbers exactly', () => {
    expect(Dec.parse('1.50').toString()).toBe('1.50');
    expect(Dec.parse(0.1).add(Dec.parse(0.2)).toString()).toBe('0.3');
    expect(Dec.parse(1e-7).toString()).toBe('0.0000001');
    expect(Dec.parse(1.5e21).toString()).toBe('1500000000000000000000');
    expect(Dec.parse('-0.005').round(2).toString()).toBe('-0.01');
    expect(() => Dec.parse('1,5')).toThrow();
    expect(() => Dec.parse('')).toThrow();
  });

  test('rounds half away from zero, truncates and ceils', () => {
    expect(Dec.parse('2.345').round(2).toString()).toBe('2.35');
    expect(Dec.parse('2.344999').round(2).toString()).toBe('2.34');
    expect(Dec.parse('924.224956').trunc(2).toString()).toBe('924.22');
    expect(Dec.parse('924.224956').ceil(2).toString()).toBe('924.23');
    expect(Dec.parse('1.379310').ceil(6).toString()).toBe('1.379310');
    expect(Dec.parse('5').round(2).toString()).toBe('5.00');
    expect(Dec.parse('100.000000').trim(2).toString()).toBe('100.00');
    expect(Dec.parse('15.375000').trim(2).toString()).toBe('15.375');
    expect(Dec.parse('0').sub(Dec.parse('0.00')).toString()).toBe('0.00');
  });

  test('property: add/mul/round agree with exact bigint arithmetic on scaled integers', () => {
    const amount = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 6 }));
    fc.assert(
      fc.property(amount, amount, ([ua, sa], [ub, sb]) => {
        const a = Dec.parse(scaled(ua, sa));
        const b = Dec.parse(scaled(ub, sb));
        const sumScale = Math.max(sa, sb);
        expect(a.add(b).units).toBe(ua * 10n ** BigInt(sumScale - sa) + ub * 10n ** BigInt(sumScale - sb));
        expect(a.mul(b).units).toBe(ua * ub);
        const r = a.mul(b).round(2);
        const exact = ua * ub; // at scale sa + sb
        const factor = 10n ** BigInt(Math.max(0, sa + sb - 2));
        const expected = sa + sb >= 2 ? (exact + factor / 2n) / factor : exact * 10n ** BigInt(2 - sa - sb);
        expect(r.units).toBe(sa + sb > 2 ? (exact * 2n + factor) / (2n * factor) : expected);
        expect(r.toString()).not.toMatch(/e/);
      }),
      { numRuns: 2000 },
    );
  });
});

function scaled(units: bigint, scale: number): string {
  const s = units.toString().padStart(scale + 1, '0');
  return scale ? `${s.slice(0, -scale)}.${s.slice(-scale)}` : s;
}

test('div rounds half away from zero at the requested decimals, exactly', () => {
  expect(Dec.parse('12000').div(Dec.parse('1.16'), 2).toString()).toBe('10344.83');
  expect(Dec.parse('1').div(Dec.parse('3'), 10).toString()).toBe('0.3333333333');
  expect(Dec.parse('2').div(Dec.parse('3'), 2).toString()).toBe('0.67');
  expect(Dec.parse('-2').div(Dec.parse('3'), 2).toString()).toBe('-0.67');
  expect(Dec.parse('0.125').div(Dec.parse('1'), 2).toString()).toBe('0.13');
  expect(Dec.parse('17.5').div(Dec.parse('0.05'), 0).toString()).toBe('350');
  expect(() => Dec.parse('1').div(Dec.ZERO, 2)).toThrow(RangeError);
});
