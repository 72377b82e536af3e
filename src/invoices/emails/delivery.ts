import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/index.ts';
import { cfdiEmails } from '../../db/schema/index.ts';
import { PermanentJobError } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import type { Logger } from '../../lib/logger.ts';
import { acuseOf } from '../cancellations/service.ts';
import type { PdfPool } from '../cfdis/pdf-pool.ts';
import { brandingOf, findCfdi, renderCfdiPdf } from '../cfdis/reads.ts';
import { stampStateOf } from '../cfdis/stamping.ts';
import { composeCfdiEmail } from './message.ts';
import { recordEmailEvent } from './outbox.ts';
import type { Mailer, OutgoingEmail } from './smtp.ts';

export interface EmailDeliveryDeps {
  db: Db;
  now: () => Date;
  /** None: SMTP_URL was removed since these were queued; they fail saying so. */
  mailer?: Mailer;
  identity: IdentityDirectory;
  logger: Logger;
  /** Where the attached PDF renders when the cache does not hold it (default: the process's one pool). */
  pdfPool?: PdfPool;
}

const LOGO_EXTENSION = { 'image/png': 'png', 'image/jpeg': 'jpg' } as const;
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The message of a sending: Spanish text with the tenant's name and branding, `<uuid>.xml` and `<uuid>.pdf` (and SAT's acuse when cancelled). */
async function messageOf(deps: EmailDeliveryDeps, email: { tenantId: string; environment: 'test' | 'live'; cfdiId: string; recipients: string[] }) {
  const cfdi = await findCfdi(deps.db, email, email.cfdiId);
  if (!cfdi.uuid) throw new PermanentJobError(`CFDI ${cfdi.id} is ${cfdi.status}: not stamped, nothing to send`);
  const cancelled = cfdi.status === 'cancelado';
  // The PDF exactly as GET /cfdis/{uuid}/pdf serves it now (the same cache, pool, branding and marks).
  const [pdf, branding, tenant, acuse] = await Promise.all([
    renderCfdiPdf(deps, cfdi),
    brandingOf(deps.db, email.tenantId),
    deps.identity.tenantById(email.tenantId),
    cancelled ? acuseOf(deps.db, cfdi.id) : undefined,
  ]);
  const tenantName = tenant?.nombre ?? 'Su proveedor';
  const content = composeCfdiEmail({
    xml: cfdi.xml,
    tenantName,
    accentColor: branding.accentColor,
    hasLogo: branding.logo !== undefined,
    sandbox: email.environment === 'test',
    cancelled,
  });
  const message: OutgoingEmail = {
    fromName: tenantName,
    ...(tenant?.replyTo ? { replyTo: tenant.replyTo } : {}),
    // The operator's capture mailbox takes every test-mode email; without one they were only ever to the tenant's users.
    to: email.environment === 'test' && deps.mailer?.testCapture ? [deps.mailer.testCapture] : email.recipients,
    ...content,
    attachments: [
      { filename: `${cfdi.uuid}.xml`, content: cfdi.xml, contentType: 'application/xml' },
      { filename: `${cfdi.uuid}.pdf`, content: Buffer.from(pdf), contentType: 'application/pdf' },
      ...(acuse ? [{ filename: `${cfdi.uuid}-acuse.xml`, content: acuse, contentType: 'application/xml' }] : []),
      ...(branding.logo
        ? [{ filename: `logo.${LOGO_EXTENSION[branding.logo.type]}`, content: branding.logo.bytes, contentType: branding.logo.type, cid: 'logo' }]
        : []),
    ],
  };
  return { message, uuid: cfdi.uuid };
}

/** Ends a sending still queued as `sent` or `failed`, with its event; nothing when it had ended already. */
async function finish(tx: Tx, id: string, set: Partial<typeof cfdiEmails.$inferInsert>, now: Date) {
  const [ended] = await tx
    .update(cfdiEmails)
    .set({ ...set, updatedAt: now.toISOString() })
    .where(and(eq(cfdiEmails.id, id), eq(cfdiEmails.status, 'queued')))
    .returning();
  if (ended) await recordEmailEvent(tx, ended, (await stampStateOf(tx, ended.cfdiId))?.uuid ?? null, now);
  return ended;
}

/**
 * One attempt of a sending. A temporary refusal (4xx, no connection, a timeout) is retried by the queue with
 * backoff, the attempt and the server's answer recorded; a permanent one (5xx) ends it as `failed` with that answer.
 */
export function emailJobHandler(deps: EmailDeliveryDeps): JobHandler {
  const emailId = (job: { payload: Record<string, unknown> }) => job.payload.email_id as string;
  return {
    async run(job) {
      const [email] = await deps.db
        .select()
        .from(cfdiEmails)
        .where(eq(cfdiEmails.id, emailId(job)));
      if (email?.status !== 'queued') return; // ended meanwhile, or its CFDI was deleted with its tenant
      if (!deps.mailer) throw new PermanentJobError('not sent: SMTP_URL is not set on this server any more');
      const { message, uuid } = await messageOf(deps, email);
      const outcome = await deps.mailer.send(message);
      if (!outcome.ok) throw outcome.permanent ? new PermanentJobError(outcome.response) : new Error(outcome.response);
      return async (tx) => {
        const now = deps.now();
        const sent = await finish(tx, email.id, { status: 'sent', attempts: job.attempts, lastResponse: outcome.response, sentAt: now.toISOString() }, now);
        if (sent) return () => deps.logger.info('email sent', { email_id: email.id, cfdi_id: email.cfdiId, uuid, attempts: job.attempts });
      };
    },
    retrying(job, error) {
      return async (tx) => {
        const now = deps.now();
        await tx
          .update(cfdiEmails)
          .set({ attempts: job.attempts, lastResponse: errorText(error), updatedAt: now.toISOString() })
          .where(and(eq(cfdiEmails.id, emailId(job)), eq(cfdiEmails.status, 'queued')));
      };
    },
    giveUp(job, error) {
      return async (tx) => {
        const now = deps.now();
        const failed = await finish(tx, emailId(job), { status: 'failed', attempts: job.attempts, lastResponse: errorText(error) }, now);
        if (failed)
          return () => deps.logger.warn('email failed', { email_id: failed.id, cfdi_id: failed.cfdiId, attempts: job.attempts, response: failed.lastResponse });
      };
    },
  };
}
