import { and, desc, eq, getTableColumns, gte, isNotNull, isNull, lt, lte } from 'drizzle-orm';
import type { z } from '@hono/zod-openapi';
import type { Db } from '../../db/client.ts';
import { receivedCfdis } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { ServiceError, notFound } from '../../lib/service-error.ts';
import { type PdfPool, pdfPool } from '../cfdis/pdf-pool.ts';
import { type ReceivedListQuery, toReceivedCfdi, toReceivedListItem } from './schemas.ts';

type Scope = Pick<Actor, 'tenantId' | 'environment'>;
const scoped = (actor: Scope) => and(eq(receivedCfdis.tenantId, actor.tenantId), eq(receivedCfdis.environment, actor.environment));

const { xml: _xml, tenantId: _t, environment: _e, ...withoutXml } = getTableColumns(receivedCfdis);
const {
  checks: _c,
  sha256: _s,
  esCancelable: _ec,
  estatusCancelacion: _sc,
  validacionEfos: _v,
  satCheckedAt: _a,
  amountPaid: _p,
  updatedAt: _u,
  ...listed
} = withoutXml;

/** Newest first, keyset on the time-sortable id, as GET /cfdis. */
export async function listReceived(deps: { db: Db }, actor: Scope, q: z.infer<typeof ReceivedListQuery>) {
  const before = decodeCursor(q.cursor);
  const r = receivedCfdis;
  const rows = await deps.db
    .select(listed)
    .from(r)
    .where(
      and(
        scoped(actor),
        before ? lt(r.id, before) : undefined,
        q.emisor_rfc ? eq(r.emisorRfc, q.emisor_rfc.toUpperCase()) : undefined,
        q.desde ? gte(r.fecha, q.desde) : undefined,
        q.hasta ? lte(r.fecha, q.hasta.length === 10 ? `${q.hasta}T23:59:59` : q.hasta) : undefined,
        q.tipo ? eq(r.tipo, q.tipo) : undefined,
        q.metodo_pago ? eq(r.metodoPago, q.metodo_pago) : undefined,
        q.validation ? eq(r.validation, q.validation) : undefined,
        q.sat_status ? eq(r.satStatus, q.sat_status) : undefined,
        q.efos_69b ? eq(r.efos69b, q.efos_69b) : undefined,
        q.efos === 'true' ? isNotNull(r.efos69b) : q.efos === 'false' ? isNull(r.efos69b) : undefined,
        q.reconciliation ? eq(r.reconciliation, q.reconciliation) : undefined,
      ),
    )
    .orderBy(desc(r.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, toReceivedListItem);
}

/** Facts, every check and the statuses; another tenant's or environment's id is a 404 like an unknown one. */
export async function getReceived(deps: { db: Db }, actor: Scope, id: string) {
  const [row] = await deps.db
    .select(withoutXml)
    .from(receivedCfdis)
    .where(and(scoped(actor), eq(receivedCfdis.id, id)));
  if (!row) throw notFound('Received CFDI');
  return toReceivedCfdi(row);
}

/** The bytes exactly as received. */
export async function getReceivedXml(deps: { db: Db }, actor: Scope, id: string) {
  const [row] = await deps.db
    .select({ id: receivedCfdis.id, uuid: receivedCfdis.uuid, xml: receivedCfdis.xml })
    .from(receivedCfdis)
    .where(and(scoped(actor), eq(receivedCfdis.id, id)));
  if (!row) throw notFound('Received CFDI');
  return row;
}

/**
 * The printed representation, by the engine's own PDF renderer (src/cfdi/pdf.ts reads everything from the XML, so a
 * received CFDI 4.0 prints as an issued one does), on the shared PDF pool under the tenant's share; never branded (it
 * is another taxpayer's document) and not cached (it is read rarely). Marked as without fiscal validity in test mode,
 * and as cancelled when SAT said so. A document that is not a well-formed CFDI 4.0 has none: 409.
 */
export async function getReceivedPdf(deps: { db: Db; pdfPool?: PdfPool }, actor: Scope, id: string) {
  const [row] = await deps.db
    .select({
      id: receivedCfdis.id,
      uuid: receivedCfdis.uuid,
      xml: receivedCfdis.xml,
      version: receivedCfdis.version,
      checks: receivedCfdis.checks,
      satStatus: receivedCfdis.satStatus,
    })
    .from(receivedCfdis)
    .where(and(scoped(actor), eq(receivedCfdis.id, id)));
  if (!row) throw notFound('Received CFDI');
  const wellFormed = row.checks.find((c) => c.name === 'well_formed')?.ok === true;
  if (!wellFormed || row.version !== '4.0') {
    throw new ServiceError('conflict', 'No printed representation', [
      {
        field: 'id',
        issue: !wellFormed
          ? 'the document is not well-formed XML: only its bytes are kept (GET …/xml)'
          : `a CFDI ${row.version} is not printed (only CFDI 4.0)`,
      },
    ]);
  }
  const pool = deps.pdfPool ?? pdfPool;
  try {
    const pdf = await pool.render(
      row.xml.toString('utf8'),
      { sandbox: actor.environment === 'test', cancelled: row.satStatus === 'cancelado' },
      actor.tenantId,
    );
    return { id: row.id, uuid: row.uuid, pdf };
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    // The renderer reads what a CFDI 4.0 must carry; a document missing it (an invalid one) cannot be printed.
    throw new ServiceError('conflict', 'No printed representation', [
      { field: 'id', issue: `the document cannot be printed (${err instanceof Error ? err.message : String(err)})` },
    ]);
  }
}
