import type { Dec } from '../../decimal.ts';
import type { TaxInput } from '../../input.ts';
import type { TaxLine } from '../../model.ts';

/** Complemento para recepción de Pagos 2.0: what a payment knows of the documents it pays, and what it writes. */

/** What a payment needs to know of the document it pays, as it stood before this REP. */
export interface PaidDocument {
  uuid: string;
  serie?: string;
  folio?: string;
  moneda: string;
  saldoAnterior: Dec;
  /** The instalment number this payment gets when the request does not say. */
  nextParcialidad: number;
  /** Instalment numbers already taken by earlier, still valid payments. */
  takenParcialidades: number[];
  objetoImp: string;
  /** Issued here: the invoice's total and taxes, prorated by ImpPagado / Total. */
  invoice?: { total: Dec; traslados: TaxLine[]; retenciones: TaxLine[] };
  /** Issued elsewhere: the DR taxes as the caller sent them. */
  sent?: { traslados: TaxInput[]; retenciones: TaxInput[] };
}

export interface DoctoModel {
  idDocumento: string;
  serie?: string;
  folio?: string;
  monedaDR: string;
  equivalenciaDR: string;
  numParcialidad: number;
  impSaldoAnt: Dec;
  impPagado: Dec;
  impSaldoInsoluto: Dec;
  objetoImpDR: string;
  traslados: TaxLine[];
  retenciones: TaxLine[];
}

export interface PagoModel {
  fechaPago: string;
  formaDePagoP: string;
  monedaP: string;
  tipoCambioP: string;
  monto: Dec;
  banco: Record<string, string | undefined>;
  documentos: DoctoModel[];
  trasladosP: TaxLine[];
  retencionesP: { impuesto: string; importe: Dec }[];
}

export interface PagosModel {
  /** Totales attributes in XSD order, only those that apply. */
  totales: [string, Dec][];
  pagos: PagoModel[];
}
