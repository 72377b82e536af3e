import { describe, expect, test } from 'bun:test';
import { endedPeriods, globalPeriod, type Periodicidad } from '../../src/cfdi/global-invoice.ts';
import type { FieldProblem } from '../../src/cfdi/input.ts';

const span = (p: { desde: string; hasta: string; meses: string; anio: string }) => `${p.desde}..${p.hasta} ${p.meses}/${p.anio}`;

describe('global invoice periods', () => {
  test('the last period that ended before today, per periodicity (weeks and fortnights cut at the month end)', () => {
    const last = (p: Periodicidad, today: string) => endedPeriods(p, today, undefined).map(span);
    expect(last('01', '2026-11-24')).toEqual(['2026-11-23..2026-11-23 11/2026']);
    expect(last('01', '2026-01-01')).toEqual(['2025-12-31..2025-12-31 12/2025']);
    // 2026-11-24 is a Tuesday: the week Monday 16 – Sunday 22 ended.
    expect(last('02', '2026-11-24')).toEqual(['2026-11-16..2026-11-22 11/2026']);
    // 2026-12-02 is a Wednesday: Monday 30 November – the month's end is the last week that ended.
    expect(last('02', '2026-12-02')).toEqual(['2026-11-30..2026-11-30 11/2026']);
    expect(last('03', '2026-11-24')).toEqual(['2026-11-01..2026-11-15 11/2026']);
    expect(last('03', '2026-12-01')).toEqual(['2026-11-16..2026-11-30 11/2026']);
    expect(last('03', '2026-11-16')).toEqual(['2026-11-01..2026-11-15 11/2026']);
    expect(last('04', '2026-11-24')).toEqual(['2026-10-01..2026-10-31 10/2026']);
    expect(last('04', '2026-03-01')).toEqual(['2026-02-01..2026-02-28 02/2026']);
    expect(last('05', '2026-11-24')).toEqual(['2026-09-01..2026-10-31 17/2026']);
    expect(last('05', '2027-01-01')).toEqual(['2026-11-01..2026-12-31 18/2026']);
  });

  test('after the last period covered: every one that ended since, oldest first', () => {
    expect(endedPeriods('01', '2026-11-24', '2026-11-20').map((p) => p.desde)).toEqual(['2026-11-21', '2026-11-22', '2026-11-23']);
    expect(endedPeriods('01', '2026-11-24', '2026-11-23')).toEqual([]);
    expect(endedPeriods('02', '2026-11-10', '2026-10-25').map(span)).toEqual([
      '2026-10-26..2026-10-31 10/2026',
      '2026-11-01..2026-11-01 11/2026',
      '2026-11-02..2026-11-08 11/2026',
    ]);
    expect(endedPeriods('01', '2026-11-24', '2025-01-01')).toHaveLength(62); // bounded: the rest at the next run
  });

  test('a requested period: desde–hasta within one month (bimester for 05), or meses and anio', () => {
    const ok = (req: Parameters<typeof globalPeriod>[0]) => {
      const problems: FieldProblem[] = [];
      const p = globalPeriod(req, problems);
      expect(problems).toEqual([]);
      return span(p!);
    };
    expect(ok({ periodicidad: '01', desde: '2026-11-24', hasta: '2026-11-24' })).toBe('2026-11-24..2026-11-24 11/2026');
    expect(ok({ periodicidad: '02', desde: '2026-11-16', hasta: '2026-11-22' })).toBe('2026-11-16..2026-11-22 11/2026');
    expect(ok({ periodicidad: '03', desde: '2026-11-16', hasta: '2026-11-30' })).toBe('2026-11-16..2026-11-30 11/2026');
    expect(ok({ periodicidad: '04', meses: '02', anio: '2028' })).toBe('2028-02-01..2028-02-29 02/2028');
    expect(ok({ periodicidad: '05', meses: '18', anio: '2026' })).toBe('2026-11-01..2026-12-31 18/2026');
    expect(ok({ periodicidad: '05', desde: '2026-11-01', hasta: '2026-12-31' })).toBe('2026-11-01..2026-12-31 18/2026');
    const bad = (req: Parameters<typeof globalPeriod>[0]) => {
      const problems: FieldProblem[] = [];
      expect(globalPeriod(req, problems)).toBeUndefined();
      return problems.map((p) => p.field);
    };
    expect(bad({ periodicidad: '03', desde: '2026-11-01', hasta: '2026-11-30' })).toEqual(['hasta']);
    expect(bad({ periodicidad: '05', desde: '2026-10-01', hasta: '2026-11-30' })).toEqual(['hasta']);
    expect(bad({ periodicidad: '04', meses: '11' })).toEqual(['anio']);
    expect(bad({ periodicidad: '05', meses: '11', anio: '2026' })).toEqual(['meses']);
  });
});
