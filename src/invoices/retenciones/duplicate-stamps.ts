import { and, eq } from 'drizzle-orm';
import { retencionDuplicateStamps, retenciones } from '../../db/schema/index.ts';
import type { DuplicateStampKind } from '../cfdis/duplicate-stamps.ts';

/**
 * A retención's duplicate stamps, under the CFDI's rules (cfdis/duplicate-stamps.ts): retencion_duplicate_stamps,
 * cancelled through SAT's cancelacionretencion (`Pac.cancelRetencion`, the request in the retentions' namespace).
 * Job types of their own: each job's ids are its kind's (a duplicate's id is its table's), and a CFDI job queued
 * before them reads as it did.
 */
export const retencionDuplicateStampKind: DuplicateStampKind = {
  checkJob: 'retencion.duplicate_check',
  cancelJob: 'retencion.duplicate_cancel',
  idKey: 'retencion_id',
  resource: 'retenciones',
  event: 'retencion.duplicate_stamp_cancelled',
  cancelacion: 'retencion',
  heldUuid: async (db, id) => (await db.select({ uuid: retenciones.uuid }).from(retenciones).where(eq(retenciones.id, id)))[0],
  insert: async (tx, retencion, pac, uuid, now) => {
    const [row] = await tx
      .insert(retencionDuplicateStamps)
      .values({
        retencionId: retencion.id,
        tenantId: retencion.tenantId,
        environment: retencion.environment,
        pac,
        uuid,
        status: 'cancelling',
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      })
      .onConflictDoNothing()
      .returning({ id: retencionDuplicateStamps.id });
    return row?.id;
  },
  cancelling: async (db, id) => {
    const [row] = await db
      .select({ dup: retencionDuplicateStamps, keptUuid: retenciones.uuid, summary: retenciones.summary })
      .from(retencionDuplicateStamps)
      .innerJoin(retenciones, eq(retenciones.id, retencionDuplicateStamps.retencionId))
      .where(and(eq(retencionDuplicateStamps.id, id), eq(retencionDuplicateStamps.status, 'cancelling')));
    if (!row) return undefined;
    const { dup } = row;
    return {
      documentId: dup.retencionId,
      tenantId: dup.tenantId,
      environment: dup.environment,
      pac: dup.pac,
      uuid: dup.uuid,
      keptUuid: row.keptUuid,
      rfcEmisor: row.summary.emisor.rfc,
    };
  },
  send: (pac, d, signedXml) => pac.cancelRetencion?.({ uuid: d.uuid, rfcEmisor: d.rfcEmisor, tenantId: d.tenantId, motivo: '02', signedXml }),
  settle: async (tx, id, status, detail, at) => {
    await tx.update(retencionDuplicateStamps).set({ status, detail, updatedAt: at }).where(eq(retencionDuplicateStamps.id, id));
  },
};
