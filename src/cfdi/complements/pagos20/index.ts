import { Dec } from '../../decimal.ts';
import { fixedConcepto } from '../../rules/conceptos.ts';
import type { Complement } from '../complement.ts';
import { PAGOS_20 } from './cadena.ts';
import type { PagoInput } from './input.ts';
import type { PagosModel, PaidDocument } from './model.ts';
import { renderPagos } from './pdf.ts';
import { preparePagos } from './rules.ts';
import { pagosNode } from './xml.ts';

interface PagosContext {
  /** Pago: each pagos[i].documentos[j] as the service resolved it (undefined where it reported a problem). */
  paidDocuments?: (PaidDocument | undefined)[][];
}

/** GET's view: each payment and the balance each paid document moved. */
interface PagosSummary {
  fecha_pago: string;
  forma_pago: string;
  moneda: string;
  tipo_cambio: string;
  monto: string;
  documentos: {
    uuid: string;
    moneda: string;
    equivalencia: string;
    num_parcialidad: number;
    imp_saldo_ant: string;
    imp_pagado: string;
    imp_saldo_insoluto: string;
  }[];
}

/** Complemento para recepción de Pagos 2.0: the tipo P (docs/sat-rules.md §8, CRP20101–20123). */
export const pagos20: Complement<'pagos', 'pagos', PagoInput[], PagosModel, PagosContext, PagosSummary[]> = {
  input: 'pagos',
  model: 'pagos',
  element: 'pago20:Pagos',
  prefix: 'pago20',
  namespace: 'http://www.sat.gob.mx/Pagos20',
  schemaLocation: 'http://www.sat.gob.mx/sitio_internet/cfd/Pagos/Pagos20.xsd',
  // One fixed concepto, amounts 0, the payments in the complement.
  kind: { tipo: 'P', amounts: () => ({ subTotal: Dec.ZERO, total: Dec.ZERO, conceptos: [fixedConcepto('84111506', 'Pago', Dec.ZERO)] }) },
  prepare: (pagos, { day, fecha }, ctx, fail) => preparePagos(pagos ?? [], ctx.paidDocuments ?? [], { day, fecha }, fail),
  node: pagosNode,
  cadena: PAGOS_20,
  pdf: { render: renderPagos },
  summary: (m) =>
    m.pagos.map((p) => ({
      fecha_pago: p.fechaPago,
      forma_pago: p.formaDePagoP,
      moneda: p.monedaP,
      tipo_cambio: p.tipoCambioP,
      monto: p.monto.toString(),
      documentos: p.documentos.map((d) => ({
        uuid: d.idDocumento,
        moneda: d.monedaDR,
        equivalencia: d.equivalenciaDR,
        num_parcialidad: d.numParcialidad,
        imp_saldo_ant: d.impSaldoAnt.toString(),
        imp_pagado: d.impPagado.toString(),
        imp_saldo_insoluto: d.impSaldoInsoluto.toString(),
      })),
    })),
};
