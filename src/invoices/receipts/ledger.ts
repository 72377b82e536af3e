import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/index.ts';
import { prepared } from '../../db/prepared.ts';
import { cfdiRelations, cfdis, receipts } from '../../db/schema/index.ts';
import { enqueue } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import type { Move } from '../cfdis/lifecycle.ts';
import { recordEvent } from '../events.ts';

/**
 * The receipts' statements that run inside an invoice's transaction: taken by the CFDI that invoices them, and given
 * back when that CFDI fails to stamp for good or is cancelled (docs/decisions.md, "One CFDI lifecycle").
 */

/** Marks open receipts invoiced by `cfdiId`; how many were still open (the caller requires all of them). */
export async function markInvoiced(tx: Tx, ids: string[], cfdiId: string, by: 'self' | 'global', now: Date): Promise<number> {
  const stamp = now.toISOString();
  const marked = await tx
    .update(receipts)
    .set({ status: 'invoiced', cfdiId, invoicedBy: by, invoicedAt: stamp, updatedAt: stamp })
    .where(and(inArray(receipts.id, ids), eq(receipts.status, 'open')))
    .returning({ id: receipts.id });
  return marked.length;
}

/**
 * The CFDI that held these receipts invoices nothing any more (fallido, or cancelado): they are open again (one past its
 * expires_at waits for a global invoice), unless the CFDI replaced another that still stands (TipoRelacion 04 to a
 * vigente global invoice or self-invoice): they go back to that one, which declares them still.
 */
export async function giveBackReceipts(tx: Tx, cfdiId: string, now: Date): Promise<void> {
  const stamp = now.toISOString();
  const [replaced] = await tx
    .select({ id: cfdis.id })
    .from(cfdiRelations)
    .innerJoin(
      cfdis,
      and(eq(cfdis.uuid, cfdiRelations.relatedUuid), eq(cfdis.tenantId, cfdiRelations.tenantId), eq(cfdis.environment, cfdiRelations.environment)),
    )
    .where(and(eq(cfdiRelations.cfdiId, cfdiId), eq(cfdiRelations.tipoRelacion, '04'), inArray(cfdis.status, ['vigente', 'cancelacion_pendiente'])))
    .limit(1);
  await tx
    .update(receipts)
    .set(replaced ? { cfdiId: replaced.id, updatedAt: stamp } : { status: 'open', cfdiId: null, invoicedBy: null, invoicedAt: null, updatedAt: stamp })
    .where(and(eq(receipts.cfdiId, cfdiId), eq(receipts.status, 'invoiced')));
}

/**
 * The replacement (TipoRelacion 04) of a global invoice takes that invoice's receipts in its own transaction; how many.
 * Its cancellation (motivo 01) then finds none to give back.
 */
export async function takeOverReceipts(tx: Tx, fromCfdiId: string, toCfdiId: string, now: Date): Promise<number> {
  const stamp = now.toISOString();
  const moved = await tx
    .update(receipts)
    .set({ cfdiId: toCfdiId, invoicedAt: stamp, updatedAt: stamp })
    .where(and(eq(receipts.cfdiId, fromCfdiId), eq(receipts.status, 'invoiced')))
    .returning({ id: receipts.id });
  return moved.length;
}

export const RELEASE_JOB = 'receipts.release';
/**
 * How long a withdrawn CFDI holds its receipts: past the longest a stamping attempt already in flight can take (a
 * PAC request times out in seconds; this leaves minutes), so a late stamp finds them still its own.
 */
export const RECEIPT_HOLD_MS = 5 * 60 * 1000;

/**
 * A CFDI withdrawn before stamping (en_cola → fallido by POST /cfdis/{id}/withdraw): an attempt already in flight may
 * still stamp it, so its receipts are held and given back by a job due after RECEIPT_HOLD_MS, if it is still fallido.
 */
export async function holdReceipts(tx: Tx, move: Move): Promise<void> {
  if ((await receiptsTakenBy(tx, move.cfdi.id)).length === 0) return;
  await enqueue(tx, move.at, {
    type: RELEASE_JOB,
    tenantId: move.cfdi.tenantId,
    environment: move.cfdi.environment,
    payload: { cfdi_id: move.cfdi.id },
    runAt: new Date(move.at.getTime() + RECEIPT_HOLD_MS),
  });
}

/** The held receipts' release: given back when the withdrawn CFDI is still fallido; a late stamp (vigente) keeps them. */
export function releaseJobHandler(deps: { now: () => Date }): JobHandler {
  return {
    async run(job) {
      const cfdiId = String(job.payload.cfdi_id);
      return async (tx) => {
        const [row] = await tx.select({ status: cfdis.status }).from(cfdis).where(eq(cfdis.id, cfdiId));
        if (row?.status === 'fallido') await giveBackReceipts(tx, cfdiId, deps.now());
      };
    },
  };
}

type ReceiptRow = typeof receipts.$inferSelect;

/** The data of a receipt.* event: what finds the ticket, with its amount as a JSON number as the API answers it. */
export const receiptEventData = (r: ReceiptRow, extra: Record<string, unknown> = {}) => ({
  receipt_id: r.id,
  folio: r.folio,
  fecha: r.fecha,
  total: Number(r.total),
  status: r.status,
  expires_at: r.expiresAt,
  ...extra,
});

/** The receipts a CFDI took (one for a customer's own invoice, many for a global invoice), inside its stamp's transaction. */
export const receiptsTakenBy = (tx: Tx, cfdiId: string): Promise<ReceiptRow[]> =>
  // Prepared once per connection: every stamp asks, and most CFDIs come from no receipt.
  prepared(tx, 'receipts.takenBy', (d) =>
    d
      .select()
      .from(receipts)
      .where(and(eq(receipts.cfdiId, sql.placeholder('cfdiId')), eq(receipts.status, 'invoiced')))
      .prepare(),
  ).execute({ cfdiId });

/**
 * A CFDI's stamp, for the receipts it took: one receipt.invoiced each, in the stamp's transaction. Announced at the
 * stamp, not when the receipt is taken: a queued CFDI that fails gives its receipts back, never having invoiced them.
 * How many deliveries it queued.
 */
export async function announceInvoiced(
  tx: Tx,
  cfdi: { id: string; tenantId: string; environment: ReceiptRow['environment'] },
  taken: ReceiptRow[],
  uuid: string,
  now: Date,
): Promise<number> {
  let deliveries = 0;
  for (const r of taken)
    deliveries += await recordEvent(tx, {
      tenantId: cfdi.tenantId,
      environment: cfdi.environment,
      type: 'receipt.invoiced',
      data: receiptEventData(r, { cfdi_id: cfdi.id, uuid, invoiced_by: r.invoicedBy }),
      now,
    });
  return deliveries;
}

/** The receipt a CFDI invoiced to its customer (GET /cfdis/{id}); null for a global invoice and every other CFDI. */
export async function receiptIdOf(db: DbOrTx, cfdiId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: receipts.id })
    .from(receipts)
    .where(and(eq(receipts.cfdiId, cfdiId), eq(receipts.invoicedBy, 'self')));
  return row?.id ?? null;
}
