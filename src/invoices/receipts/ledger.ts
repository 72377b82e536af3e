import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../db/index.ts';
import { receipts } from '../../db/schema/index.ts';

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
