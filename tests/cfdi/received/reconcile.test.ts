import { describe, expect, test } from 'bun:test';
import { type CreditFacts, type PaymentFacts, type PpdInvoiceFacts, reconcile } from '../../../src/cfdi/received/reconcile.ts';

/** A fixture month: ten received PPD invoices and the REPs and Egresos that touch them. */
const uuid = (n: number) => `AAAAAAAA-0000-4000-8000-${String(n).padStart(12, '0')}`;
const invoices: PpdInvoiceFacts[] = [
  { uuid: uuid(1), total: '1160.00', moneda: 'MXN' }, // paid fully by one REP
  { uuid: uuid(2), total: '1160.00', moneda: 'MXN' }, // paid partly
  { uuid: uuid(3), total: '500.00', moneda: 'MXN' }, // paid twice (two REPs of 500): exceso
  { uuid: uuid(4), total: '2320.00', moneda: 'MXN' }, // not paid
  { uuid: uuid(5), total: '1000.00', moneda: 'MXN' }, // two parcialidades adding up to the total
  { uuid: uuid(6), total: '1160.00', moneda: 'MXN' }, // 960 paid + a nota de crédito of 200
  { uuid: uuid(7), total: '5800.00', moneda: 'MXN' }, // an anticipo of 1000 applied, 4800 paid
  { uuid: uuid(8), total: '100.00', moneda: 'USD' }, // USD, paid in USD 0.01 short; a MXN line naming it does not count
  { uuid: uuid(9), total: '300.00', moneda: 'MXN' }, // paid by an REP that was cancelled: sin_pago
  { uuid: uuid(10), total: '0.30', moneda: 'MXN' }, // 0.1 + 0.2 paid: exactly completo (no float drift)
];
const payments: PaymentFacts[] = [
  { uuid: 'REP-1', doctos: [{ idDocumento: uuid(1).toLowerCase(), impPagado: '1160.00', monedaDR: 'MXN' }] },
  {
    uuid: 'REP-2',
    doctos: [
      { idDocumento: uuid(2), impPagado: '580.00', monedaDR: 'MXN' },
      { idDocumento: uuid(3), impPagado: '500.00', monedaDR: 'MXN' },
      { idDocumento: uuid(5), impPagado: '400.00', monedaDR: 'MXN' },
    ],
  },
  { uuid: 'REP-3', doctos: [{ idDocumento: uuid(3), impPagado: '500.00', monedaDR: 'MXN' }] },
  {
    uuid: 'REP-4',
    doctos: [
      { idDocumento: uuid(5), impPagado: '600.00', monedaDR: 'MXN' },
      { idDocumento: uuid(6), impPagado: '960.00', monedaDR: 'MXN' },
    ],
  },
  { uuid: 'REP-5', doctos: [{ idDocumento: uuid(7), impPagado: '4800.00', monedaDR: 'MXN' }] },
  {
    uuid: 'REP-6',
    doctos: [
      { idDocumento: uuid(8), impPagado: '99.99', monedaDR: 'USD' },
      { idDocumento: uuid(8), impPagado: '5000', monedaDR: 'MXN' },
    ],
  },
  { uuid: 'REP-7', cancelled: true, doctos: [{ idDocumento: uuid(9), impPagado: '300.00', monedaDR: 'MXN' }] },
  {
    uuid: 'REP-8',
    doctos: [
      { idDocumento: uuid(10), impPagado: '0.1', monedaDR: 'MXN' },
      { idDocumento: uuid(10), impPagado: '0.2', monedaDR: 'MXN' },
    ],
  },
  // An REP paying an invoice that is not a received PPD of this set: nothing.
  { uuid: 'REP-9', doctos: [{ idDocumento: uuid(99), impPagado: '10', monedaDR: 'MXN' }] },
];
const credits: CreditFacts[] = [
  { uuid: 'NC-1', total: '200.00', moneda: 'MXN', relacionados: [{ tipoRelacion: '01', uuid: uuid(6) }] },
  { uuid: 'ANT-1', total: '1000.00', moneda: 'MXN', relacionados: [{ tipoRelacion: '07', uuid: uuid(7) }] },
  // A devolución (03) and a sustitución (04) credit nothing; a cancelled nota de crédito neither.
  { uuid: 'DEV-1', total: '100.00', moneda: 'MXN', relacionados: [{ tipoRelacion: '03', uuid: uuid(4) }] },
  { uuid: 'SUS-1', total: '100.00', moneda: 'MXN', relacionados: [{ tipoRelacion: '04', uuid: uuid(4) }] },
  { uuid: 'NC-X', cancelled: true, total: '2320.00', moneda: 'MXN', relacionados: [{ tipoRelacion: '01', uuid: uuid(4) }] },
];

describe('reconcile over a fixture month', () => {
  const result = new Map(reconcile({ invoices, payments, credits }).map((r) => [r.uuid, r]));
  const get = (n: number) => result.get(uuid(n))!;

  test('every state', () => {
    expect([...Array(10)].map((_, i) => get(i + 1).state)).toEqual([
      'completo',
      'parcial',
      'exceso',
      'sin_pago',
      'completo',
      'completo',
      'completo',
      'parcial',
      'sin_pago',
      'completo',
    ]);
  });

  test('amounts paid, credited and the balance, in exact decimals', () => {
    expect(get(2)).toMatchObject({ paid: '580.00', credited: '0', amountPaid: '580.00', balance: '580.00' });
    expect(get(3)).toMatchObject({ amountPaid: '1000.00', balance: '-500.00' });
    expect(get(6)).toMatchObject({ paid: '960.00', credited: '200.00', amountPaid: '1160.00', balance: '0.00' });
    expect(get(7).applied).toEqual([
      { uuid: 'REP-5', kind: 'pago', amount: '4800.00' },
      { uuid: 'ANT-1', kind: 'anticipo', amount: '1000.00' },
    ]);
    expect(get(10)).toMatchObject({ amountPaid: '0.3', balance: '0.00' });
    expect(get(4)).toMatchObject({ amountPaid: '0', applied: [] });
  });

  test('a line in another currency is not counted, and is named', () => {
    expect(get(8)).toMatchObject({ amountPaid: '99.99', ignored: [{ uuid: 'REP-6', issue: "MonedaDR MXN is not the invoice's Moneda USD" }] });
  });

  test('a cancelled invoice is not reconciled', () => {
    const out = reconcile({ invoices: [{ uuid: uuid(1), total: '10', moneda: 'MXN', cancelled: true }], payments, credits });
    expect(out).toEqual([]);
  });

  test('an Egreso relating several invoices spreads in its order, each up to what it owes; the rest falls on the last', () => {
    const out = reconcile({
      invoices: [
        { uuid: 'A', total: '100', moneda: 'MXN' },
        { uuid: 'B', total: '100', moneda: 'MXN' },
        { uuid: 'C', total: '100', moneda: 'MXN' },
      ],
      payments: [{ uuid: 'P', doctos: [{ idDocumento: 'A', impPagado: '60', monedaDR: 'MXN' }] }],
      credits: [
        {
          uuid: 'NC',
          total: '250',
          moneda: 'MXN',
          relacionados: [
            { tipoRelacion: '01', uuid: 'A' },
            { tipoRelacion: '01', uuid: 'B' },
            { tipoRelacion: '01', uuid: 'C' },
          ],
        },
      ],
    });
    expect(out.map((r) => [r.uuid, r.credited, r.state])).toEqual([
      ['A', '40', 'completo'],
      ['B', '100', 'completo'],
      ['C', '110', 'exceso'],
    ]);
  });
});
