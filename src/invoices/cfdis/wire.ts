import { complementSummaries, conceptoComplementSummaries } from '../../cfdi/complements/index.ts';
import type { ComprobanteModel } from '../../cfdi/model.ts';
import type { CfdiSummary } from '../../db/schema/index.ts';
import { ServiceError } from '../../lib/service-error.ts';
import { toCfdi, type CfdiRow } from './schemas.ts';

/** What issuing answers: the 201 of a stamped CFDI, the 202 of a queued one, the 422 of a rejected one; and the summary it stores. */

/** The 201: an invoice that has been stamped (vigente, or cancelled since when a crashed request is resumed) has its UUID. */
export function stampedAnswer(row: CfdiRow, warnings?: string[]) {
  const cfdi = toCfdi(row);
  const { uuid, fecha_timbrado: fechaTimbrado, sello_sat: selloSat, certificado_sat: certificadoSat, cadena_original_sat: cadena } = cfdi;
  if (uuid === null || fechaTimbrado === null || selloSat === null || certificadoSat === null || cadena === null)
    throw new Error(`CFDI ${row.id} is ${row.status} without a stamp`);
  return {
    queued: false as const,
    body: {
      ...cfdi,
      uuid,
      fecha_timbrado: fechaTimbrado,
      sello_sat: selloSat,
      certificado_sat: certificadoSat,
      cadena_original_sat: cadena,
      ...(warnings && { warnings }),
    },
  };
}

export const queuedAnswer = (row: CfdiRow) => ({
  queued: true as const,
  body: {
    id: row.id,
    uuid: null,
    tipo: row.tipo,
    status: 'en_cola' as const,
    external_id: row.externalId,
    metadata: row.metadata,
    mensaje: `The stamping provider did not answer in time; the CFDI is queued and will be stamped automatically. Poll GET /api/v1/cfdis/${row.id} until its status is vigente (or fallido).`,
    created_at: row.createdAt,
  },
});

export const rejected = (row: Pick<CfdiRow, 'failureReason'>) =>
  new ServiceError('rejected', 'Rejected by the stamping provider', [{ field: 'pac', issue: row.failureReason ?? 'stamping failed' }]);

/** What the response needs beyond the row's columns, fixed at issue time. */
export function summaryOf(m: ComprobanteModel): CfdiSummary {
  return {
    emisor: { rfc: m.emisor.rfc, nombre: m.emisor.nombre, regimen_fiscal: m.emisor.regimenFiscal },
    receptor: { rfc: m.receptor.rfc, nombre: m.receptor.nombre },
    conceptos: m.conceptos.map((c) => ({
      descripcion: c.descripcion,
      cantidad: c.cantidad.toString(),
      valor_unitario: c.valorUnitario.toString(),
      importe: c.importe.toString(),
      ...(c.descuento ? { descuento: c.descuento.toString() } : {}),
      ...conceptoComplementSummaries(c),
    })),
    descuento: m.descuento?.toString(),
    total_impuestos_trasladados: m.impuestos?.totalTrasladados?.toString(),
    total_impuestos_retenidos: m.impuestos?.totalRetenidos?.toString(),
    forma_pago: m.formaPago,
    metodo_pago: m.metodoPago,
    ...complementSummaries(m),
  };
}
