import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/index.ts';
import { prepared } from '../../db/prepared.ts';
import { receipts } from '../../db/schema/index.ts';
import { recordEvent } from '../events.ts';

/**
 * The receipts' statements that run inside an invoice's transaction: taken by the CFDI that invoices them, and given
 * back when that CFDI fails to stamp for good.
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

/** A CFDI that will never be stamped (fallido) invoiced nothing: its receipts are open again. */
export async function reopenReceiptsOf(tx: Tx, cfdiId: string, now: Date): Promise<void> {
  await tx
    .update(receipts)
    .set({ status: 'open', cfdiId: null, invoicedBy: null, invoicedAt: null, updatedAt: now.toISOString() })
    .where(and(eq(receipts.cfdiId, cfdiId), eq(receipts.status, 'invoiced')));
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
