import { and, asc, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { cancellationFactsOf } from '../../cfdi/cancellation.ts';
import type { Db } from '../../db/client.ts';
import { type DbOrTx, withTransaction } from '../../db/index.ts';
import { type Environment, receivedCfdis } from '../../db/schema/index.ts';
import { conflict, notFound, ServiceError } from '../../lib/service-error.ts';
import type { CfdiQuery, StatusResult } from '../../pac/types.ts';
import { type EventType, recordEvent } from '../events.ts';
import { affectedBy, reconcileInvoices } from './reconciliation.ts';

/**
 * The SAT status of received CFDI (issue 39, build item 3): ConsultaCFDIService (live: `consultSat` at
 * SAT_CONSULTA_URL; test: the sandbox's simulated SAT) asked for one document (POST /received-cfdis/{id}/refresh) or
 * for a bounded batch of those not checked lately (the periodic task). What it answers is stored on the row, and the
 * changes that matter are events (and webhooks) in the same transaction, each only when its value changes.
 */

export interface ReceivedStatusDeps {
  db: Db;
  now: () => Date;
  /** ConsultaCFDIService for the environment: the live service, or the sandbox's simulated SAT in test mode. */
  consult(environment: Environment, query: CfdiQuery): Promise<StatusResult>;
}

type Row = typeof receivedCfdis.$inferSelect;
type Scope = { tenantId: string; environment: Environment };

const SAT_STATUS = { Vigente: 'vigente', Cancelado: 'cancelado', 'No Encontrado': 'no_encontrado' } as const;
/** ValidacionEFOS: 200 the issuer is not listed, 100 it is (phpcfdi/sat-estado-cfdi#11). */
const EFOS_LISTED = '100';
const LISTED_69B = new Set(['presunto', 'definitivo']);

/** Whether a row shows its issuer as listed: SAT's ValidacionEFOS, or the Lista 69-B flag presunto / definitivo. */
const efosListed = (r: Pick<Row, 'validacionEfos' | 'efos69b'>) => r.validacionEfos === EFOS_LISTED || LISTED_69B.has(r.efos69b ?? '');

/** The events a change of the row's SAT facts raises: each only when its value changes. */
function statusEvents(before: Pick<Row, 'satStatus' | 'estatusCancelacion' | 'validacionEfos' | 'efos69b'>, after: typeof before): EventType[] {
  const out: EventType[] = [];
  if (after.satStatus === 'cancelado' && before.satStatus !== 'cancelado') out.push('received_cfdi.cancelled');
  if (after.estatusCancelacion === 'En proceso' && before.estatusCancelacion !== 'En proceso') out.push('received_cfdi.cancellation_requested');
  if (efosListed(after) && !efosListed(before)) out.push('received_cfdi.efos_listed');
  return out;
}

const receivedEventData = (r: Row) => ({
  received_cfdi_id: r.id,
  uuid: r.uuid,
  emisor_rfc: r.emisorRfc,
  total: r.total,
  sat_status: r.satStatus,
  estatus_cancelacion: r.estatusCancelacion,
  validacion_efos: r.validacionEfos,
  efos_69b: r.efos69b,
});

/** Writes the events `statusEvents` gives for the move from `before` to `after`, in the caller's transaction. */
export async function recordStatusEvents(tx: DbOrTx, before: Row, after: Row, now: Date) {
  for (const type of statusEvents(before, after))
    await recordEvent(tx, { tenantId: after.tenantId, environment: after.environment, type, data: receivedEventData(after), now });
}

async function ask(deps: ReceivedStatusDeps, row: Row): Promise<StatusResult> {
  if (!row.uuid) throw conflict('This received CFDI has no UUID (it is not a stamped CFDI): SAT has no status for it', [{ field: 'id', issue: 'has no UUID' }]);
  const facts = cancellationFactsOf(row.xml.toString('utf8'));
  return deps.consult(row.environment, { uuid: row.uuid, rfcEmisor: facts.rfcEmisor, rfcReceptor: facts.rfcReceptor, total: facts.total, sello: facts.sello });
}

/** Stores SAT's answer and its events; a row changed since it was read (another refresh) is written over with the newer answer. */
async function store(deps: ReceivedStatusDeps, row: Row, result: Extract<StatusResult, { ok: true }>) {
  const now = deps.now();
  const s = result.status;
  // serializable: the values before the write decide which events it raises (each only once, on a change)
  return withTransaction(deps.db, { isolation: 'serializable', name: 'received_cfdis.status' }, async (tx) => {
    const [before] = await tx.select().from(receivedCfdis).where(eq(receivedCfdis.id, row.id));
    if (!before) throw notFound('Received CFDI');
    const [after] = await tx
      .update(receivedCfdis)
      .set({
        satStatus: SAT_STATUS[s.Estado] ?? null,
        esCancelable: s.EsCancelable || null,
        estatusCancelacion: s.EstatusCancelacion || null,
        validacionEfos: s.ValidacionEFOS || null,
        satCheckedAt: now.toISOString(),
        updatedAt: now.toISOString(),
      })
      .where(eq(receivedCfdis.id, row.id))
      .returning();
    await recordStatusEvents(tx, before, after!, now);
    // A cancelled REP, Egreso or invoice changes what the invoices it touches owe.
    if (after!.satStatus !== before.satStatus)
      await reconcileInvoices(tx, { tenantId: after!.tenantId, environment: after!.environment }, await affectedBy(tx, after!));
    const [current] = await tx.select().from(receivedCfdis).where(eq(receivedCfdis.id, row.id));
    return current!;
  });
}

const toReceivedStatus = (r: Row) => ({
  id: r.id,
  uuid: r.uuid,
  sat_status: r.satStatus,
  es_cancelable: r.esCancelable,
  estatus_cancelacion: r.estatusCancelacion,
  validacion_efos: r.validacionEfos,
  efos_69b: r.efos69b,
  sat_checked_at: r.satCheckedAt,
});

/** POST /received-cfdis/{id}/refresh: asks SAT now; 404 for another tenant's or environment's id; 503 when SAT does not answer. */
export async function refreshReceivedStatus(deps: ReceivedStatusDeps, scope: Scope, id: string) {
  const [row] = await deps.db
    .select()
    .from(receivedCfdis)
    .where(and(eq(receivedCfdis.id, id), eq(receivedCfdis.tenantId, scope.tenantId), eq(receivedCfdis.environment, scope.environment)));
  if (!row) throw notFound('Received CFDI');
  const result = await ask(deps, row);
  if (!result.ok)
    throw new ServiceError('unavailable', `SAT's status service did not answer: ${result.message}`, [{ field: 'sat', issue: result.message }], 60);
  return toReceivedStatus(await store(deps, row, result));
}

/**
 * The periodic refresh: received CFDI with a UUID never checked or last checked before `olderThan`, oldest first, at
 * most `batch` per call (SAT's service is slow and shared). One that SAT does not answer is left for a later round.
 */
export async function refreshStaleReceived(deps: ReceivedStatusDeps, o: { olderThanMs: number; batch: number }) {
  const cutoff = new Date(deps.now().getTime() - o.olderThanMs).toISOString();
  const rows = await deps.db
    .select()
    .from(receivedCfdis)
    .where(and(isNotNull(receivedCfdis.uuid), or(isNull(receivedCfdis.satCheckedAt), lt(receivedCfdis.satCheckedAt, cutoff))))
    // Never checked first, on both engines (SQLite sorts nulls first, PostgreSQL last).
    .orderBy(asc(sql`coalesce(${receivedCfdis.satCheckedAt}, '')`), asc(receivedCfdis.id))
    .limit(o.batch);
  let refreshed = 0;
  let failed = 0;
  for (const row of rows) {
    const result = await ask(deps, row);
    if (result.ok) {
      await store(deps, row, result);
      refreshed++;
    } else failed++;
  }
  return { refreshed, failed };
}
