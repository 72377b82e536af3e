import { and, desc, eq, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { withTransaction } from '../../db/index.ts';
import { cfdiEmails } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { conflict, invalidInput, notFound } from '../../lib/service-error.ts';
import { getClientEmail } from '../clients/service.ts';
import { findCfdi, type CfdiRef } from '../cfdis/reads.ts';
import { lockedStampStateOf } from '../cfdis/lifecycle.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import { checkSending } from './budget.ts';
import { recordEmail } from './outbox.ts';
import { toCfdiEmail, type CfdiEmailRequest } from './schemas.ts';
import { requireMailer, type Mailer } from './smtp.ts';

export interface EmailDeps {
  db: Db;
  now: () => Date;
  mailer?: Mailer;
  identity: IdentityDirectory;
  wakeJobs(): void;
}

const notStamped = (cfdi: { id: string }, status: string) =>
  conflict(`CFDI ${cfdi.id} is ${status}: it was never stamped, so there is no XML or PDF to send`, [{ field: 'status', issue: `is ${status}` }]);

/** `to` as sent, or the client's email when the CFDI was issued with receptor_id; no address at all is a 400 naming `to`. */
async function recipientsOf(db: Db, actor: Actor, cfdi: CfdiRef, to: string[] | undefined): Promise<string[]> {
  if (to) return to;
  const scope = { tenantId: actor.tenantId, environment: actor.environment };
  const email = cfdi.clientId ? await getClientEmail(db, scope, cfdi.clientId) : undefined;
  if (email) return [email];
  const why = cfdi.clientId
    ? `its client ${cfdi.clientId} has no email (set one with PATCH /clients/${cfdi.clientId}, or send to)`
    : 'it was not issued with receptor_id, so there is no client email to default to';
  throw invalidInput('No recipient', [{ field: 'to', issue: `is required: ${why}` }]);
}

/**
 * POST /cfdis/{id}/email: records the sending (queued) and, when the CFDI is stamped, its job, in one transaction;
 * a CFDI still queued for stamping is sent once stamped. A cancelled one goes with SAT's acuse.
 */
export async function emailCfdi(deps: EmailDeps, actor: Actor, ref: string, body: CfdiEmailRequest, bindIdempotency?: IdempotencyClaim['bind']) {
  requireMailer(deps, 'to');
  const cfdi = await findCfdi(deps.db, actor, ref);
  if (cfdi.status === 'fallido') throw notStamped(cfdi, cfdi.status);
  const sending = await checkSending(deps, actor, 'to', await recipientsOf(deps.db, actor, cfdi, body.to));
  const now = deps.now();
  // serializable: the stamp state read decides whether the sending's job is queued now or by the stamp
  const { row, queued } = await withTransaction(deps.db, { isolation: 'serializable', name: 'cfdis.email' }, async (tx) => {
    // Decided on what this transaction sees, the invoice's row locked: a stamp recorded at the same time either waits
    // for this sending and queues it, or made this transaction re-run and is seen here.
    const state = await lockedStampStateOf(tx, cfdi.id);
    if (!state || state.status === 'fallido') throw notStamped(cfdi, state?.status ?? 'fallido');
    const stamped = state.uuid !== null;
    const recorded = await recordEmail(tx, cfdi, sending, now, stamped);
    await bindIdempotency?.(tx, recorded.id);
    return { row: recorded, queued: stamped };
  });
  if (queued) deps.wakeJobs();
  return toCfdiEmail(row);
}

/** GET /cfdis/{id}/emails: every sending of the CFDI, newest first; with or without SMTP_URL (none were made without it). */
export async function listCfdiEmails(deps: EmailDeps, actor: Actor, ref: string, q: { limit: number; cursor?: string }) {
  const cfdi = await findCfdi(deps.db, actor, ref);
  const before = decodeCursor(q.cursor);
  const rows = await deps.db
    .select()
    .from(cfdiEmails)
    .where(and(eq(cfdiEmails.cfdiId, cfdi.id), before ? lt(cfdiEmails.id, before) : undefined))
    .orderBy(desc(cfdiEmails.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, toCfdiEmail);
}

/** A retry of a POST /cfdis/{id}/email whose first request died before answering: that sending as it is now. */
export async function resumeEmailCfdi(deps: EmailDeps, actor: Actor, id: string) {
  const [row] = await deps.db
    .select()
    .from(cfdiEmails)
    .where(and(eq(cfdiEmails.id, id), eq(cfdiEmails.tenantId, actor.tenantId), eq(cfdiEmails.environment, actor.environment)));
  if (!row) throw notFound('Email');
  return toCfdiEmail(row);
}
