import { and, count, desc, eq, gte, lt } from 'drizzle-orm';
import { groupDigits, printedDate } from '../../cfdi/pdf/format.ts';
import { child, parseXml } from '../../cfdi/xml.ts';
import { withTransaction, type DbOrTx, type Tx } from '../../db/index.ts';
import { retencionEmails } from '../../db/schema/index.ts';
import { enqueue, PermanentJobError } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { newId } from '../../lib/ids.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { conflict, notFound } from '../../lib/service-error.ts';
import { chargeSending, checkSending, type EmailedDocument } from '../emails/budget.ts';
import type { EmailDeliveryDeps } from '../emails/delivery.ts';
import { EMAIL_JOB, EMAIL_MAX_ATTEMPTS } from '../emails/outbox.ts';
import type { EmailDeps } from '../emails/service.ts';
import type { OutgoingEmail } from '../emails/smtp.ts';
import { getRetencionPdf, getRetencionRow, getRetencionXml } from './reads.ts';
import type { RetencionEmailRequest } from './schemas.ts';

/**
 * POST /retenciones/{id}/email: the stamped XML and its PDF to the receptor, through the email pool's queue, as a
 * CFDI's (POST /cfdis/{id}/email): the same budgets, test-mode rule, retries, job type and tenant lane (a laned
 * pool runs one job type), told apart by the payload's `retencion_email_id`.
 */

type RetencionEmailRow = typeof retencionEmails.$inferSelect;

const RETENCION_DOCUMENT: EmailedDocument = {
  name: 'retención',
  async sentSince(tx, id, since) {
    const [sent] = await tx
      .select({ n: count() })
      .from(retencionEmails)
      .where(and(eq(retencionEmails.retencionId, id), gte(retencionEmails.createdAt, since)));
    return sent?.n ?? 0;
  },
};

const toRetencionEmail = (r: RetencionEmailRow) => ({
  id: r.id,
  retencion_id: r.retencionId,
  to: r.recipients,
  status: r.status,
  attempts: r.attempts,
  last_response: r.lastResponse,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
  sent_at: r.sentAt,
});

export async function emailRetencion(deps: EmailDeps, actor: Actor, ref: string, body: RetencionEmailRequest, bindIdempotency?: IdempotencyClaim['bind']) {
  const row = await getRetencionRow(deps.db, actor, ref);
  if (!row.uuid)
    throw conflict(
      `Retención ${row.id} is ${row.status}: ${row.status === 'en_cola' ? 'not stamped yet' : 'it was never stamped'}, so there is no XML or PDF to send`,
      [{ field: 'status', issue: `is ${row.status}` }],
    );
  const sending = await checkSending(deps, actor, 'to', body.to);
  const now = deps.now();
  const at = now.toISOString();
  // serializable: the retención's sendings today, counted, decide whether this one is charged
  const recorded = await withTransaction(deps.db, { isolation: 'serializable', name: 'retenciones.email' }, async (tx) => {
    await chargeSending(tx, row, sending, now, RETENCION_DOCUMENT);
    const email: RetencionEmailRow = {
      id: newId('eml', now.getTime()),
      retencionId: row.id,
      tenantId: row.tenantId,
      environment: row.environment,
      recipients: sending.recipients,
      status: 'queued',
      attempts: 0,
      lastResponse: null,
      createdAt: at,
      updatedAt: at,
      sentAt: null,
    };
    await tx.insert(retencionEmails).values(email);
    await enqueue(tx, now, {
      type: EMAIL_JOB,
      tenantId: email.tenantId,
      environment: email.environment,
      lane: `email:${email.tenantId}`,
      payload: { retencion_email_id: email.id },
      maxAttempts: EMAIL_MAX_ATTEMPTS,
    });
    await bindIdempotency?.(tx, email.id);
    return email;
  });
  deps.wakeJobs();
  return toRetencionEmail(recorded);
}

/** GET /retenciones/{id}/emails: every sending of the retención, newest first. */
export async function listRetencionEmails(deps: Pick<EmailDeps, 'db'>, actor: Actor, ref: string, q: { limit: number; cursor?: string }) {
  const row = await getRetencionRow(deps.db, actor, ref);
  const before = decodeCursor(q.cursor);
  const rows = await deps.db
    .select()
    .from(retencionEmails)
    .where(and(eq(retencionEmails.retencionId, row.id), before ? lt(retencionEmails.id, before) : undefined))
    .orderBy(desc(retencionEmails.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, toRetencionEmail);
}

/** A retry of a POST /retenciones/{id}/email whose first request died before answering: that sending as it is now. */
export async function resumeEmailRetencion(deps: Pick<EmailDeps, 'db'>, actor: Actor, id: string) {
  const [row] = await deps.db
    .select()
    .from(retencionEmails)
    .where(and(eq(retencionEmails.id, id), eq(retencionEmails.tenantId, actor.tenantId), eq(retencionEmails.environment, actor.environment)));
  if (!row) throw notFound('Email');
  return toRetencionEmail(row);
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The message in Spanish, with the values the XML carries (as the PDF prints them). */
function composeRetencionEmail(xml: Buffer, tenantName: string, o: { sandbox: boolean; cancelled: boolean }) {
  const root = parseXml(xml.toString('utf8'));
  const tfd = child(child(root, 'retenciones:Complemento') ?? root, 'tfd:TimbreFiscalDigital');
  const receptor = child(root, 'retenciones:Receptor');
  const nombre = receptor && (child(receptor, 'retenciones:Nacional') ?? child(receptor, 'retenciones:Extranjero'));
  const totales = child(root, 'retenciones:Totales')?.attrs ?? {};
  const rows: [string, string][] = [
    ['Folio', root.attrs.FolioInt ?? ''],
    ['Fecha', printedDate(root.attrs.FechaExp)],
    ['Total retenido', `$${groupDigits(totales.MontoTotRet ?? '0')} MXN`],
    ['Folio fiscal (UUID)', tfd?.attrs.UUID ?? ''],
  ];
  const intro = o.cancelled
    ? `${tenantName} le envía su constancia de retenciones (CFDI de Retenciones e información de pagos). Este comprobante fue cancelado ante el SAT.`
    : `${tenantName} le envía su constancia de retenciones (CFDI de Retenciones e información de pagos): se adjuntan el XML y su representación impresa (PDF).`;
  const greeting = nombre?.attrs.NomDenRazSocR ? `Estimado(a) ${nombre.attrs.NomDenRazSocR}:` : 'Estimado(a) contribuyente:';
  const notes = o.sandbox ? ['Comprobante de prueba (sandbox): sin validez fiscal.'] : [];
  const subject = `${o.cancelled ? 'Cancelado: ' : ''}Constancia de retenciones ${root.attrs.FolioInt ?? ''} de ${tenantName}`;
  const text = [greeting, '', intro, '', ...rows.map(([k, v]) => `${k}: ${v}`), '', ...notes, '', 'Atentamente,', tenantName, ''].join('\n');
  const html =
    `<!DOCTYPE html><html lang="es"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body>` +
    `<p>${escapeHtml(greeting)}</p><p>${escapeHtml(intro)}</p><table>` +
    rows.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td><strong>${escapeHtml(v)}</strong></td></tr>`).join('') +
    `</table>${notes.map((n) => `<p>${escapeHtml(n)}</p>`).join('')}<p>Atentamente,<br>${escapeHtml(tenantName)}</p></body></html>`;
  return { subject, text, html };
}

async function messageOf(deps: EmailDeliveryDeps, email: RetencionEmailRow): Promise<OutgoingEmail> {
  const scope = { tenantId: email.tenantId, environment: email.environment };
  const row = await getRetencionRow(deps.db, scope, email.retencionId);
  const { uuid, xml } = await getRetencionXml(deps.db, scope, row.id);
  // The PDF exactly as GET /retenciones/{id}/pdf renders it now (the tenant's branding, the sandbox and cancelled marks).
  const [{ pdf }, tenant] = await Promise.all([getRetencionPdf(deps, scope, row.id), deps.identity.tenantById(email.tenantId)]);
  const tenantName = tenant?.nombre ?? 'Su proveedor';
  return {
    fromName: tenantName,
    ...(tenant?.replyTo ? { replyTo: tenant.replyTo } : {}),
    to: email.environment === 'test' && deps.mailer?.testCapture ? [deps.mailer.testCapture] : email.recipients,
    ...composeRetencionEmail(xml, tenantName, { sandbox: email.environment === 'test', cancelled: row.status === 'cancelado' }),
    attachments: [
      { filename: `${uuid}.xml`, content: xml, contentType: 'application/xml' },
      { filename: `${uuid}.pdf`, content: Buffer.from(pdf), contentType: 'application/pdf' },
    ],
  };
}

/** Ends a sending still queued as `sent` or `failed`; nothing when it had ended already. */
const finish = (tx: Tx, id: string, set: Partial<RetencionEmailRow>, now: Date) =>
  tx
    .update(retencionEmails)
    .set({ ...set, updatedAt: now.toISOString() })
    .where(and(eq(retencionEmails.id, id), eq(retencionEmails.status, 'queued')))
    .returning();

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
const loadEmail = async (db: DbOrTx, id: string) => (await db.select().from(retencionEmails).where(eq(retencionEmails.id, id)))[0];

/** The email pool's handler: a retención's sending (its payload names `retencion_email_id`) here, a CFDI's to `cfdi`. */
export function withRetencionEmails(cfdi: JobHandler, deps: EmailDeliveryDeps): JobHandler {
  const retencion = retencionEmailJobHandler(deps);
  const of = (job: { payload: Record<string, unknown> }) => ('retencion_email_id' in job.payload ? retencion : cfdi);
  return {
    run: (job) => of(job).run(job),
    retrying: (job, error) => of(job).retrying?.(job, error) ?? (() => {}),
    giveUp: (job, error) => of(job).giveUp?.(job, error) ?? (() => {}),
    ...(cfdi.maxBackoffMs !== undefined && { maxBackoffMs: cfdi.maxBackoffMs }),
  };
}

/** One attempt of a sending: a temporary refusal is retried with backoff, a permanent one (5xx) ends it as `failed`. */
function retencionEmailJobHandler(deps: EmailDeliveryDeps): JobHandler {
  const emailId = (job: { payload: Record<string, unknown> }) => job.payload.retencion_email_id as string;
  return {
    async run(job) {
      const email = await loadEmail(deps.db, emailId(job));
      if (email?.status !== 'queued') return;
      if (!deps.mailer) throw new PermanentJobError('not sent: SMTP_URL is not set on this server any more');
      const outcome = await deps.mailer.send(await messageOf(deps, email));
      if (!outcome.ok) throw outcome.permanent ? new PermanentJobError(outcome.response) : new Error(outcome.response);
      return async (tx) => {
        const now = deps.now();
        await finish(tx, email.id, { status: 'sent', attempts: job.attempts, lastResponse: outcome.response, sentAt: now.toISOString() }, now);
      };
    },
    retrying(job, error) {
      return async (tx) => {
        const now = deps.now();
        await tx
          .update(retencionEmails)
          .set({ attempts: job.attempts, lastResponse: errorText(error), updatedAt: now.toISOString() })
          .where(and(eq(retencionEmails.id, emailId(job)), eq(retencionEmails.status, 'queued')));
      };
    },
    giveUp(job, error) {
      return async (tx) => {
        await finish(tx, emailId(job), { status: 'failed', attempts: job.attempts, lastResponse: errorText(error) }, deps.now());
      };
    },
  };
}
