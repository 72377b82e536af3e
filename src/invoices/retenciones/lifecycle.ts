import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/index.ts';
import { retencionDocuments, retenciones, type CfdiStatus } from '../../db/schema/index.ts';
import { recordEvent } from '../events.ts';
import type { RetencionRow } from './schemas.ts';

/**
 * The one owner of a retención's status (the CFDI's values: en_cola, vigente, cancelacion_pendiente, cancelado,
 * fallido). Nothing else writes `retenciones.status`; tests/invoices/retenciones/lifecycle.test.ts fails when something
 * does. In the sandbox a retención is born stamped (vigente); in live mode it is born en_cola with its sealed XML and
 * its stamp job moves it to vigente or fallido. It is cancelled at once, without the receiver's acceptance
 * (docs/decisions.md, "Retenciones 2.0: cancellation, SAT status, PDF"): vigente → cancelado.
 */

type Lifecycle = Pick<RetencionRow, 'id' | 'tenantId' | 'environment'>;
/** A retención as issuing makes it: everything but its status, which is this module's to set. */
export type NewRetencion = Omit<RetencionRow, 'status'>;

/** Writes a retención in its first status with its document (stamped, or sealed and waiting for its stamp). */
async function born(tx: Tx, retencion: NewRetencion, status: 'vigente' | 'en_cola', xml: string): Promise<RetencionRow> {
  const row = { ...retencion, status };
  await tx.insert(retenciones).values(row);
  await tx.insert(retencionDocuments).values({ retencionId: row.id, tenantId: row.tenantId, xml: Buffer.from(xml, 'utf8') });
  return row;
}

/** The one conditional update: the retención moves only from the status it is expected in. Undefined when it was not. */
async function move(tx: Tx, id: string, from: CfdiStatus, set: Partial<RetencionRow> & { status: CfdiStatus; updatedAt: string }) {
  const [moved] = await tx
    .update(retenciones)
    .set(set)
    .where(and(eq(retenciones.id, id), eq(retenciones.status, from)))
    .returning();
  return moved;
}

const timbrada = (tx: Tx, row: RetencionRow, at: Date) =>
  recordEvent(tx, {
    tenantId: row.tenantId,
    environment: row.environment,
    type: 'retencion.timbrada',
    data: { retencion_id: row.id, uuid: row.uuid, folio_int: row.folioInt, cve_retenc: row.cveRetenc, receptor_rfc: row.receptorRfc },
    now: at,
  });

/**
 * Writes a stamped retención (vigente) with its document, and what arriving there announces (`retencion.timbrada`),
 * in the caller's transaction: the row written, and how many webhook deliveries it queued.
 */
export async function bornStamped(tx: Tx, retencion: NewRetencion, xml: string, at: Date): Promise<{ row: RetencionRow; deliveries: number }> {
  const row = await born(tx, retencion, 'vigente', xml);
  return { row, deliveries: await timbrada(tx, row, at) };
}

/** Writes a sealed retención waiting for a live PAC's stamp (en_cola), its sealed XML as its document, in the caller's transaction. */
export const bornQueued = (tx: Tx, retencion: NewRetencion, sealedXml: string): Promise<RetencionRow> => born(tx, retencion, 'en_cola', sealedXml);

/** What a live PAC's stamp writes: the stamped XML and the TFD's values. */
export interface RetencionStamp {
  xml: string;
  uuid: string;
  /** FechaTimbrado in UTC. */
  fechaTimbrado: string;
  pac: string;
  tfd: { sello_sat: string; certificado_sat: string; cadena_original_sat: string };
}

/**
 * en_cola → vigente with its stamp (the stamped XML replaces the sealed one) and `retencion.timbrada`, in the caller's
 * transaction. How many webhook deliveries it queued; undefined when it was no longer en_cola (nothing written).
 */
export async function stamped(tx: Tx, row: RetencionRow, stamp: RetencionStamp, at: Date): Promise<number | undefined> {
  const moved = await move(tx, row.id, 'en_cola', {
    status: 'vigente',
    uuid: stamp.uuid,
    fechaTimbrado: stamp.fechaTimbrado,
    pac: stamp.pac,
    summary: { ...row.summary, ...stamp.tfd },
    updatedAt: at.toISOString(),
  });
  if (!moved) return undefined;
  await tx
    .update(retencionDocuments)
    .set({ xml: Buffer.from(stamp.xml, 'utf8') })
    .where(eq(retencionDocuments.retencionId, row.id));
  return timbrada(tx, moved, at);
}

/**
 * en_cola → fallido, the reason kept (`failure_reason`) and `retencion.fallida`, in the caller's transaction: no PAC
 * will stamp it. Its folio stays used. Undefined when it was no longer en_cola.
 */
export async function failed(tx: Tx, row: Lifecycle, reason: string, at: Date): Promise<number | undefined> {
  const moved = await move(tx, row.id, 'en_cola', { status: 'fallido', failureReason: reason, updatedAt: at.toISOString() });
  if (!moved) return undefined;
  return recordEvent(tx, {
    tenantId: row.tenantId,
    environment: row.environment,
    type: 'retencion.fallida',
    data: { retencion_id: row.id, folio_int: moved.folioInt, cve_retenc: moved.cveRetenc, receptor_rfc: moved.receptorRfc, reason },
    now: at,
  });
}

/**
 * vigente → cancelado once SAT acknowledged the cancellation, with its details and `retencion.cancelada`, in the
 * caller's transaction. Undefined when it was no longer vigente (another request moved it first).
 */
export async function cancelled(
  tx: Tx,
  row: Pick<RetencionRow, 'id' | 'tenantId' | 'environment' | 'uuid' | 'folioInt' | 'summary'>,
  cancelacion: { motivo: string; folio_sustitucion: string | null },
  at: Date,
): Promise<RetencionRow | undefined> {
  const details = { ...cancelacion, cancelled_at: at.toISOString() };
  const moved = await move(tx, row.id, 'vigente', { status: 'cancelado', summary: { ...row.summary, cancelacion: details }, updatedAt: at.toISOString() });
  if (!moved) return undefined;
  await recordEvent(tx, {
    tenantId: row.tenantId,
    environment: row.environment,
    type: 'retencion.cancelada',
    data: { retencion_id: row.id, uuid: row.uuid, folio_int: row.folioInt, motivo: details.motivo, folio_sustitucion: details.folio_sustitucion },
    now: at,
  });
  return moved;
}
