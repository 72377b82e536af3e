import { and, count, eq, gte, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/index.ts';
import { cfdiEmails, emailBudgets, type Environment } from '../../db/schema/index.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import { emailDailyLimitOf, type Plan } from '../../lib/plans.ts';
import { invalidInput, ServiceError } from '../../lib/service-error.ts';
import { requireMailer, type Mailer } from './smtp.ts';

/** Sendings of one CFDI per UTC day: enough to resend it to a customer who lost it, not to mail one invoice on a loop. */
const CFDI_EMAILS_PER_DAY = 5;

/** A sending checked before its transaction: its recipients, the request field that named them, and the tenant's budget. */
export interface EmailSending {
  recipients: string[];
  field: string;
  plan: Plan;
  dailyLimit: number;
}

/**
 * Before anything is stored: the server can email (else 400 naming `field`), and a test-mode sending goes only to
 * the tenant's own users, unless the operator captures every test-mode email (EMAIL_TEST_CAPTURE): a free sign-up's
 * sk_test_ key must not relay mail to strangers under the operator's address (docs/decisions.md, "Email budgets").
 */
export async function checkSending(
  deps: { mailer?: Mailer; identity: IdentityDirectory },
  scope: { tenantId: string; environment: Environment },
  field: string,
  to: string[],
): Promise<EmailSending> {
  const mailer = requireMailer(deps, field);
  const recipients = [...new Set(to)];
  if (scope.environment === 'test' && !mailer.testCapture) {
    const users = new Set(await deps.identity.userEmails(scope.tenantId));
    const strangers = recipients.filter((r) => !users.has(r));
    if (strangers.length)
      throw invalidInput('A test-mode email goes only to the addresses of your own users', [
        {
          field,
          issue:
            `${strangers.join(', ')} is not the email of a user of this tenant: in test mode (sk_test_ keys) a CFDI is emailed only to ` +
            'your users, so that you can see the message; email your customers from live mode',
        },
      ]);
  }
  const plan = (await deps.identity.tenantById(scope.tenantId))?.plan ?? 'sandbox';
  return { recipients, field, plan, dailyLimit: emailDailyLimitOf(plan, mailer.dailyLimit) };
}

/** The kind of document a sending is of (a CFDI, a retención): its name in the refusal, and its sendings since a time. */
export interface EmailedDocument {
  name: string;
  sentSince(tx: DbOrTx, id: string, since: string): Promise<number>;
}

const CFDI_DOCUMENT: EmailedDocument = {
  name: 'CFDI',
  async sentSince(tx, id, since) {
    const [sent] = await tx
      .select({ n: count() })
      .from(cfdiEmails)
      .where(and(eq(cfdiEmails.cfdiId, id), gte(cfdiEmails.createdAt, since)));
    return sent?.n ?? 0;
  },
};

/** 429 naming the budget, its limit and when it resets (the next UTC midnight), with Retry-After until then. */
function overBudget(budget: string, limit: string, used: string, field: string, now: Date): ServiceError {
  const resets = new Date(`${now.toISOString().slice(0, 10)}T00:00:00.000Z`);
  resets.setUTCDate(resets.getUTCDate() + 1);
  const issue = `budget ${budget}: ${limit}; ${used}; resets at ${resets.toISOString()}`;
  return new ServiceError('too_many', `Email budget used up (${budget}): ${limit}`, [{ field, issue }], Math.ceil((resets.getTime() - now.getTime()) / 1000));
}

/**
 * Charges a sending to its budgets, in the transaction that records it, so that concurrent requests cannot pass
 * a budget together: the CFDI's sendings today are counted there, and the tenant's recipients today are added by
 * one conditional upsert that writes nothing when they would pass the limit.
 */
export async function chargeSending(
  tx: DbOrTx,
  cfdi: { id: string; tenantId: string },
  sending: EmailSending,
  now: Date,
  document: EmailedDocument = CFDI_DOCUMENT,
): Promise<void> {
  const day = now.toISOString().slice(0, 10);
  const sent = await document.sentSince(tx, cfdi.id, `${day}T00:00:00.000Z`);
  if (sent >= CFDI_EMAILS_PER_DAY)
    throw overBudget(
      'cfdi_daily',
      `${CFDI_EMAILS_PER_DAY} sendings of one ${document.name} per UTC day`,
      `${document.name} ${cfdi.id} has been emailed ${sent} times today`,
      sending.field,
      now,
    );
  const n = sending.recipients.length;
  const limit = `${sending.dailyLimit} recipients per UTC day for this tenant (plan ${sending.plan}; EMAIL_DAILY_LIMIT raised by the plan)`;
  if (n > sending.dailyLimit) throw overBudget('email_daily', limit, `this message alone has ${n}`, sending.field, now);
  const [charged] = await tx
    .insert(emailBudgets)
    .values({ tenantId: cfdi.tenantId, day, recipients: n })
    .onConflictDoUpdate({
      target: emailBudgets.tenantId,
      set: { day, recipients: sql`case when ${emailBudgets.day} = ${day} then ${emailBudgets.recipients} + ${n} else ${n} end` },
      setWhere: sql`${emailBudgets.day} <> ${day} or ${emailBudgets.recipients} + ${n} <= ${sending.dailyLimit}`,
    })
    .returning({ recipients: emailBudgets.recipients });
  if (charged) return;
  const [today] = await tx.select({ recipients: emailBudgets.recipients }).from(emailBudgets).where(eq(emailBudgets.tenantId, cfdi.tenantId));
  throw overBudget('email_daily', limit, `${today?.recipients ?? 0} used today, this message adds ${n}`, sending.field, now);
}
