import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/index.ts';
import { retencionDocuments, retenciones } from '../../db/schema/index.ts';
import { recordEvent } from '../events.ts';
import type { RetencionRow } from './schemas.ts';

/**
 * The one owner of a retención's status (the CFDI's values: en_cola, vigente, cancelacion_pendiente, cancelado,
 * fallido). Nothing else writes `retenciones.status`; tests/invoices/retenciones/lifecycle.test.ts fails when something
 * does. A retención is born stamped (vigente) in the sandbox and is cancelled at once, without the receiver's acceptance
 * (docs/decisions.md, "Retenciones 2.0: cancellation, SAT status, PDF"): vigente → cancelado.
 */

/**
 * Writes a stamped retención in its first status with its document, and what arriving there announces
 * (`retencion.timbrada`), in the caller's transaction. How many webhook deliveries it queued.
 */
export async function bornStamped(tx: Tx, row: RetencionRow & { status: 'vigente' }, xml: string, at: Date): Promise<number> {
  await tx.insert(retenciones).values(row);
  await tx.insert(retencionDocuments).values({ retencionId: row.id, tenantId: row.tenantId, xml: Buffer.from(xml, 'utf8') });
  return recordEvent(tx, {
    tenantId: row.tenantId,
    environment: row.environment,
    type: 'retencion.timbrada',
    data: { retencion_id: row.id, uuid: row.uuid, folio_int: row.folioInt, cve_retenc: row.cveRetenc, receptor_rfc: row.receptorRfc },
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
  const [moved] = await tx
    .update(retenciones)
    .set({ status: 'cancelado', summary: { ...row.summary, cancelacion: details }, updatedAt: at.toISOString() })
    .where(and(eq(retenciones.id, row.id), eq(retenciones.status, 'vigente')))
    .returning();
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
