import { describe, expect, test } from 'bun:test';
import { periodKey, precheckSatDownload } from '../../../src/invoices/sat-downloads/prechecks.ts';
import { ServiceError } from '../../../src/lib/service-error.ts';

/** Descarga Masiva v1.5's rules as a pure function (no database): what POST /sat-downloads checks before sending. */

const NOW = new Date('2026-11-27T18:00:00Z');
const base = { direction: 'received', kind: 'xml', desde: '2026-01-01', hasta: '2026-01-31' } as const;
const problems = (over: Record<string, unknown>) => {
  try {
    precheckSatDownload({ ...base, ...over } as never, NOW);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ServiceError);
    return (err as ServiceError).details.map((d) => [d.field, d.issue]);
  }
};

describe('precheckSatDownload', () => {
  test('dates alone are whole days; received XML always asks only vigentes, everything else Todos', () => {
    expect(precheckSatDownload(base, NOW)).toEqual({ ...base, desde: '2026-01-01T00:00:00', hasta: '2026-01-31T23:59:59', estadoComprobante: 'Vigente' });
    expect(precheckSatDownload({ ...base, kind: 'metadata' }, NOW).estadoComprobante).toBe('Todos');
    expect(precheckSatDownload({ ...base, direction: 'issued' }, NOW).estadoComprobante).toBe('Todos');
  });

  test('the six-year floor is today six years ago at 00:00; one second before is refused', () => {
    expect(problems({ desde: '2020-11-27T00:00:00' })).toEqual([]);
    expect(problems({ desde: '2020-11-26T23:59:59' })).toEqual([['desde', expect.stringContaining('six years')]]);
  });

  test('desde strictly before hasta; impossible dates; every problem at once', () => {
    expect(problems({ desde: '2026-01-31T23:59:59', hasta: '2026-01-31T23:59:59' })).toEqual([['hasta', expect.stringContaining('strictly before')]]);
    expect(problems({ desde: '2026-02-30', hasta: 'mañana', tipo: 'Z', rfc: 'x' }).map(([f]) => f)).toEqual(['desde', 'hasta', 'rfc', 'tipo']);
  });

  test('one counterparty RFC for received, in t_RFC shape, upper-cased; tipo in c_TipoDeComprobante', () => {
    expect(problems({ rfc: 'ICV060329BY0 AAA010101AAA' })).toEqual([['rfc', expect.stringContaining('at most one counterparty')]]);
    expect(precheckSatDownload({ ...base, rfc: 'icv060329by0', tipo: 'p' }, NOW)).toMatchObject({ rfc: 'ICV060329BY0', tipo: 'P' });
  });

  test('the period key: the same request twice is the same period, one second more is another', () => {
    const a = precheckSatDownload(base, NOW);
    expect(periodKey(precheckSatDownload({ ...base, desde: '2026-01-01T00:00:00' }, NOW))).toBe(periodKey(a));
    expect(periodKey(precheckSatDownload({ ...base, desde: '2026-01-01T00:00:01' }, NOW))).not.toBe(periodKey(a));
    expect(periodKey(precheckSatDownload({ ...base, kind: 'metadata' }, NOW))).not.toBe(periodKey(a));
  });
});
