import type { TipoDeComprobante } from '../input.ts';

/**
 * Which voucher types each new type may relate to, per TipoRelacion (Guía de llenado, RULES.md §9): an Egreso
 * corrects invoices, a Traslado moves invoiced goods (05), and P, N and T replace only their own kind (04).
 * An Ingreso is not restricted here.
 */
export const RELATES_TO: Partial<Record<TipoDeComprobante, Record<string, string[]>>> = {
  E: { '01': ['I', 'E'], '02': ['I', 'E'], '03': ['I', 'T'], '04': ['E'], '06': ['T'], '07': ['I', 'E'] },
  T: { '04': ['T'], '05': ['I', 'E'] },
  P: { '04': ['P'] },
  N: { '04': ['N'] },
};

/** A voucher type as a sentence names it: "an Egreso relates to …". */
export const TIPO_NAME: Record<TipoDeComprobante, string> = { I: 'an Ingreso', E: 'an Egreso', T: 'a Traslado', P: 'a Pago', N: 'a Nómina' };
