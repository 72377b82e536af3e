import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/index.ts';
import { prepared } from '../../db/prepared.ts';
import { cfdiEmails, type Environment } from '../../db/schema/index.ts';
import { newId } from '../../lib/ids.ts';
import { enqueue } from '../../jobs/queue.ts';
import { recordEvent } from '../events.ts';
import { chargeSending, type EmailSending } from './budget.ts';

export const EMAIL_JOB = 'cfdi.email';
/** With the queue's backoff (1 s doubling to 5 min) about two hours of retries: a server that greylists or is down a while. */
export const EMAIL_MAX_ATTEMPTS = 30;

export type EmailRow = typeof cfdiEmails.$inferSelect;

/** The CFDI an email is of. */
interface CfdiTarget {
  id: string;
  tenantId: string;
  environment: Environment;
}

const p = sql.placeholder;

/** One attempt of sending an email, as a job in its tenant's lane: one tenant's backlog holds at most the lane cap of the email pool. */
const enqueueEmail = (tx: DbOrTx, now: Date, email: { id: string; tenantId: string; environment: Environment }) =>
  enqueue(tx, now, {
    type: EMAIL_JOB,
    tenantId: email.tenantId,
    environment: email.environment,
    lane: `email:${email.tenantId}`,
    payload: { email_id: email.id },
    maxAttempts: EMAIL_MAX_ATTEMPTS,
  });

/**
 * Records a sending of the CFDI (`queued`), charged to its budgets (429 when one is used up), and its job when the
 * CFDI is stamped (`stamped`); a CFDI still queued for stamping gets its job when the stamp is recorded
 * (queueWaitingEmails). Call it inside the transaction that decides the sending, so the row, its charge and its job
 * commit together.
 */
export async function recordEmail(tx: DbOrTx, cfdi: CfdiTarget, sending: EmailSending, now: Date, stamped: boolean): Promise<EmailRow> {
  await chargeSending(tx, cfdi, sending, now);
  const at = now.toISOString();
  const row: EmailRow = {
    id: newId('eml', now.getTime()),
    cfdiId: cfdi.id,
    tenantId: cfdi.tenantId,
    environment: cfdi.environment,
    recipients: sending.recipients,
    status: 'queued',
    attempts: 0,
    lastResponse: null,
    createdAt: at,
    updatedAt: at,
    sentAt: null,
  };
  await tx.insert(cfdiEmails).values(row);
  if (stamped) await enqueueEmail(tx, now, row);
  return row;
}

/** The sendings of a CFDI still waiting (for its stamp, or their job). Prepared: every recorded stamp asks. */
const waitingOf = (tx: DbOrTx, cfdiId: string) =>
  prepared(tx, 'cfdiEmails.waiting', (d) =>
    d
      .select({ id: cfdiEmails.id, recipients: cfdiEmails.recipients })
      .from(cfdiEmails)
      .where(and(eq(cfdiEmails.cfdiId, p('cfdiId')), eq(cfdiEmails.status, 'queued')))
      .prepare(),
  ).execute({ cfdiId });

/**
 * In the transaction that records the stamp: the sendings asked for before it (email_to on POST /cfdis, or POST
 * /cfdis/{id}/email while queued) get their jobs. Returns how many.
 */
export async function queueWaitingEmails(tx: DbOrTx, cfdi: CfdiTarget, now: Date): Promise<number> {
  const waiting = await waitingOf(tx, cfdi.id);
  for (const e of waiting) await enqueueEmail(tx, now, { id: e.id, tenantId: cfdi.tenantId, environment: cfdi.environment });
  return waiting.length;
}

/** In the transaction that records that the CFDI will not be stamped: its waiting sendings fail, each with its event. */
export async function failWaitingEmails(tx: DbOrTx, cfdi: CfdiTarget & { uuid?: string | null }, reason: string, now: Date): Promise<void> {
  const at = now.toISOString();
  const failed = await tx
    .update(cfdiEmails)
    .set({ status: 'failed', lastResponse: reason, updatedAt: at })
    .where(and(eq(cfdiEmails.cfdiId, cfdi.id), eq(cfdiEmails.status, 'queued')))
    .returning();
  for (const e of failed) await recordEmailEvent(tx, e, cfdi.uuid ?? null, now);
}

/** cfdi.email_enviado or cfdi.email_fallido for a sending that ended. */
export async function recordEmailEvent(tx: DbOrTx, e: EmailRow, uuid: string | null, now: Date): Promise<void> {
  await recordEvent(tx, {
    tenantId: e.tenantId,
    environment: e.environment,
    type: e.status === 'sent' ? 'cfdi.email_enviado' : 'cfdi.email_fallido',
    data: { cfdi_id: e.cfdiId, uuid, email_id: e.id, to: e.recipients, attempts: e.attempts, last_response: e.lastResponse },
    now,
  });
}
