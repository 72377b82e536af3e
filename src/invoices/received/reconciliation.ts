import { and, eq, inArray } from 'drizzle-orm';
import { type CreditFacts, type PaymentFacts, reconcile, reconciliationLinesOf } from '../../cfdi/received/reconcile.ts';
import type { DbOrTx } from '../../db/index.ts';
import { type Environment, receivedCfdiLines, receivedCfdis } from '../../db/schema/index.ts';

/**
 * Reconciliation of received PPD invoices, kept current in the transactions that change its inputs (intake, a SAT
 * status moving to cancelado): the pure rules are src/cfdi/received/reconcile.ts; the lines it reads are written at
 * intake (received_cfdi_lines); the result is received_cfdis.reconciliation and amount_paid.
 */

type Scope = { tenantId: string; environment: Environment };

/** At intake, in its transaction: the REP's or Egreso's lines; returns the invoice UUIDs whose state may change. */
export async function recordReconciliationLines(
  tx: DbOrTx,
  scope: Scope,
  row: { id: string; xml: Buffer | string; uuid: string | null; tipo: string | null; metodoPago: string | null },
) {
  if (row.tipo === 'I' && row.metodoPago === 'PPD' && row.uuid) return [row.uuid];
  const lines = row.tipo === 'P' || row.tipo === 'E' ? reconciliationLinesOf(row.xml.toString()) : [];
  if (lines.length > 0) await tx.insert(receivedCfdiLines).values(lines.map((l, i) => ({ receivedCfdiId: row.id, ...scope, position: i, ...l })));
  return [...new Set(lines.map((l) => l.targetUuid))];
}

/** The invoice UUIDs a received document's state affects: itself (a PPD invoice) or those its lines name. */
export async function affectedBy(tx: DbOrTx, row: { id: string; uuid: string | null; tipo: string | null; metodoPago: string | null }) {
  if (row.tipo === 'I' && row.metodoPago === 'PPD' && row.uuid) return [row.uuid];
  const lines = await tx.select({ t: receivedCfdiLines.targetUuid }).from(receivedCfdiLines).where(eq(receivedCfdiLines.receivedCfdiId, row.id));
  return [...new Set(lines.map((l) => l.t))];
}

/**
 * Recomputes the given invoices (and those an Egreso naming them also names, since it is spread over them in its
 * order) from every stored line that names them, in the caller's transaction. Only validated documents count; a
 * document SAT answered cancelado counts for nothing; a cancelled invoice's state is cleared.
 */
export async function reconcileInvoices(tx: DbOrTx, scope: Scope, uuids: string[]) {
  if (uuids.length === 0) return;
  const inScope = and(eq(receivedCfdiLines.tenantId, scope.tenantId), eq(receivedCfdiLines.environment, scope.environment));
  const naming = await tx
    .select({ id: receivedCfdiLines.receivedCfdiId })
    .from(receivedCfdiLines)
    .where(and(inScope, inArray(receivedCfdiLines.targetUuid, uuids)));
  const docIds = [...new Set(naming.map((n) => n.id))];
  const lines = docIds.length ? await tx.select().from(receivedCfdiLines).where(inArray(receivedCfdiLines.receivedCfdiId, docIds)) : [];
  const targets = [...new Set([...uuids, ...lines.map((l) => l.targetUuid)])];
  const docs = docIds.length
    ? await tx
        .select({ id: receivedCfdis.id, uuid: receivedCfdis.uuid, satStatus: receivedCfdis.satStatus, validation: receivedCfdis.validation })
        .from(receivedCfdis)
        .where(inArray(receivedCfdis.id, docIds))
    : [];
  const docOf = new Map(docs.map((d) => [d.id, d]));
  const invoices = await tx
    .select()
    .from(receivedCfdis)
    .where(
      and(
        eq(receivedCfdis.tenantId, scope.tenantId),
        eq(receivedCfdis.environment, scope.environment),
        inArray(receivedCfdis.uuid, targets),
        eq(receivedCfdis.tipo, 'I'),
        eq(receivedCfdis.metodoPago, 'PPD'),
      ),
    );
  const counts = (id: string) => docOf.get(id)?.validation === 'validated';
  const cancelled = (id: string) => docOf.get(id)?.satStatus === 'cancelado';
  const payments: PaymentFacts[] = [];
  const credits: CreditFacts[] = [];
  for (const id of docIds) {
    if (!counts(id)) continue;
    const own = lines.filter((l) => l.receivedCfdiId === id).sort((a, b) => a.position - b.position);
    const uuid = docOf.get(id)?.uuid ?? id;
    if (own[0]?.kind === 'pago')
      payments.push({ uuid, cancelled: cancelled(id), doctos: own.map((l) => ({ idDocumento: l.targetUuid, impPagado: l.amount, monedaDR: l.moneda })) });
    else if (own[0])
      credits.push({
        uuid,
        cancelled: cancelled(id),
        total: own[0].amount,
        moneda: own[0].moneda,
        relacionados: own.map((l) => ({ tipoRelacion: l.kind, uuid: l.targetUuid })),
      });
  }
  const result = new Map(
    reconcile({
      invoices: invoices
        .filter((i) => i.validation === 'validated')
        .map((i) => ({ uuid: i.uuid!, total: i.total ?? '0', moneda: i.moneda ?? '', cancelled: i.satStatus === 'cancelado' })),
      payments,
      credits,
    }).map((r) => [r.uuid, r]),
  );
  for (const invoice of invoices) {
    const r = result.get(invoice.uuid!);
    const reconciliation = r?.state ?? null;
    const amountPaid = r?.amountPaid ?? null;
    if (invoice.reconciliation === reconciliation && invoice.amountPaid === amountPaid) continue;
    await tx.update(receivedCfdis).set({ reconciliation, amountPaid }).where(eq(receivedCfdis.id, invoice.id));
  }
}
