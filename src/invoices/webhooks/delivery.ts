import { createHmac, randomUUID } from 'node:crypto';
import { and, eq, ne, sql } from 'drizzle-orm';
import { prepared } from '../../db/prepared.ts';
import type { Db } from '../../db/client.ts';
import { webhookAttempts, webhookDeliveries, webhooks, type Environment } from '../../db/schema/index.ts';
import { enqueue } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import { openSecret } from '../../lib/secret-box.ts';
import type { Logger } from '../../lib/logger.ts';
import { postPinned, resolveTarget, type HostResolver } from './target.ts';
import type { DbOrTx } from '../../db/index.ts';

export const DELIVER_JOB = 'webhook.deliver';
/** Standard Webhooks' schedule, in seconds before each attempt: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const DEFAULT_RETRY_SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];
const ATTEMPT_TIMEOUT_MS = 10_000;
const PAUSE_AFTER_FAILURES = 10;
const RESPONSE_BODY_LIMIT = 1024;

export interface WebhookDeliveryDeps {
  db: Db;
  now: () => Date;
  masterKey: Buffer;
  retrySchedule: number[];
  /** Lets webhooks (test and live) target private, loopback, link-local and metadata addresses. */
  allowPrivate: boolean;
  resolve: HostResolver;
  wakeJobs(): void;
  logger: Logger;
}

interface EventRow {
  id: string;
  tenantId: string;
  environment: Environment;
  type: string;
  data: Record<string, unknown>;
  createdAt: string;
}

/** One attempt of a delivery, as a job in the webhook's lane (a slow endpoint holds at most the lane cap of workers). */
export async function enqueueDelivery(
  tx: DbOrTx,
  now: Date,
  d: { tenantId: string; environment: Environment; webhookId: string; deliveryId: string; runAt?: Date },
) {
  await enqueue(tx, now, {
    type: DELIVER_JOB,
    tenantId: d.tenantId,
    environment: d.environment,
    lane: `webhook:${d.webhookId}`,
    payload: { delivery_id: d.deliveryId },
    runAt: d.runAt,
  });
}

/** The spec's payload, serialised once: every attempt sends these exact bytes. */
const payloadOf = (e: EventRow) => JSON.stringify({ event: e.type, tenant_id: e.tenantId, created_at: e.createdAt, data: e.data });

const p = sql.placeholder;
const hook = { id: webhooks.id, events: webhooks.events, estado: webhooks.estado };
const live = ne(webhooks.estado, 'DESACTIVADO');

/** Prepared, as the delivery insert: every event runs them. */
const fanOutQueries = (tx: DbOrTx) => ({
  hookById: prepared(tx, 'webhooks.fanOut.byId', (d) =>
    d
      .select(hook)
      .from(webhooks)
      .where(and(eq(webhooks.id, p('id')), live))
      .prepare(),
  ),
  hooksOf: prepared(tx, 'webhooks.fanOut.ofTenant', (d) =>
    d
      .select(hook)
      .from(webhooks)
      .where(and(eq(webhooks.tenantId, p('tenantId')), eq(webhooks.environment, p('environment')), live))
      .prepare(),
  ),
  insert: prepared(tx, 'webhookDeliveries.insert', (d) =>
    d
      .insert(webhookDeliveries)
      .values({
        id: p('id'),
        tenantId: p('tenantId'),
        webhookId: p('webhookId'),
        eventId: p('eventId'),
        event: p('event'),
        body: p('body'),
        state: 'pendiente',
        createdAt: p('now'),
        updatedAt: p('now'),
        nextAttemptAt: p('now'),
      })
      .prepare(),
  ),
});

/**
 * Outbox fan-out, inside the transaction that records the event: one delivery per subscribed webhook of the same
 * tenant and environment. Active webhooks get a job now; paused ones keep the delivery pending until resumed.
 */
export async function fanOut(tx: DbOrTx, e: EventRow, now: Date, only?: string): Promise<string[]> {
  const q = fanOutQueries(tx);
  const hooks = only ? await q.hookById.execute({ id: only }) : await q.hooksOf.execute({ tenantId: e.tenantId, environment: e.environment });
  const ids: string[] = [];
  for (const h of hooks) {
    if (!only && !h.events.includes('*') && !h.events.includes(e.type)) continue;
    const id = randomUUID();
    await q.insert.execute({ id, tenantId: e.tenantId, webhookId: h.id, eventId: e.id, event: e.type, body: payloadOf(e), now: now.toISOString() });
    if (h.estado === 'ACTIVO') await enqueueDelivery(tx, now, { tenantId: e.tenantId, environment: e.environment, webhookId: h.id, deliveryId: id });
    ids.push(id);
  }
  return ids;
}

const standardSignature = (secret: string, signed: string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(signed)
    .digest('base64')}`;

/**
 * Both signatures: ours (X-FC-Signature over the raw body, with the current secret) and Standard Webhooks' (over
 * id.timestamp.body): during a rotation's overlap it lists the previous secret's signature after the current one's,
 * space-separated as that spec allows, so a receiver still on the old secret keeps verifying.
 */
function signatureHeaders(secrets: string[], deliveryId: string, event: string, body: string, timestamp: number): Record<string, string> {
  const fc = createHmac('sha256', secrets[0]!).update(body).digest('hex');
  const signed = `${deliveryId}.${timestamp}.${body}`;
  return {
    'Content-Type': 'application/json',
    'X-FC-Event': event,
    'X-FC-Signature': `sha256=${fc}`,
    'X-FC-Delivery-Id': deliveryId,
    'X-FC-Timestamp': String(timestamp),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => standardSignature(secret, signed)).join(' '),
  };
}

/** Delay before the next attempt: the schedule's, or the receiver's Retry-After when longer; ±10 % jitter. */
function nextDelayMs(schedule: number[], attempt: number, retryAfter: string | null): number | undefined {
  if (attempt >= schedule.length) return undefined;
  const base = schedule[attempt]! * 1000;
  const asked = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 0;
  const delay = Math.max(base, asked);
  return Math.round(delay * (0.9 + Math.random() * 0.2));
}

/** A delivery with what an attempt needs of its webhook. Prepared: every attempt reads it. */
const deliveryById = (db: Db) =>
  prepared(db, 'webhookDeliveries.forAttempt', (d) =>
    d
      .select({
        id: webhookDeliveries.id,
        tenantId: webhookDeliveries.tenantId,
        webhookId: webhookDeliveries.webhookId,
        event: webhookDeliveries.event,
        body: webhookDeliveries.body,
        state: webhookDeliveries.state,
        attempts: webhookDeliveries.attempts,
        url: webhooks.url,
        estado: webhooks.estado,
        secretSealed: webhooks.secretSealed,
        previousSecretSealed: webhooks.previousSecretSealed,
        previousExpiresAt: webhooks.previousExpiresAt,
        environment: webhooks.environment,
      })
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .where(eq(webhookDeliveries.id, p('id')))
      .prepare(),
  );

/** One attempt of a delivery. Retries are scheduled by the delivery itself (the webhook schedule), not by the queue. */
export function deliveryJobHandler(deps: WebhookDeliveryDeps): JobHandler {
  return {
    async run(job) {
      const [d] = await deliveryById(deps.db).execute({ id: job.payload.delivery_id as string });
      // Delivered meanwhile, deleted, or the webhook is paused/disabled: resuming re-queues what is pending.
      if (d?.state !== 'pendiente' || d.estado !== 'ACTIVO') return;
      const attempt = d.attempts + 1;
      const started = performance.now();
      let status: number | null = null;
      let responseBody: string | null = null;
      let error: string | null = null;
      let retryAfter: string | null = null;
      try {
        const checked = await resolveTarget(d.url, deps);
        if ('problem' in checked) throw new Error(`url ${checked.problem}`);
        const now = deps.now();
        const secrets = [d.secretSealed];
        if (d.previousSecretSealed && d.previousExpiresAt && d.previousExpiresAt > now.toISOString()) secrets.push(d.previousSecretSealed);
        const res = await postPinned(checked.target, {
          body: d.body,
          headers: signatureHeaders(
            secrets.map((sealed) => openSecret(deps.masterKey, sealed, d.webhookId).toString('utf8')),
            d.id,
            d.event,
            d.body,
            Math.floor(now.getTime() / 1000),
          ),
          timeoutMs: ATTEMPT_TIMEOUT_MS,
          bodyLimit: RESPONSE_BODY_LIMIT,
        });
        status = res.status;
        retryAfter = res.retryAfter;
        responseBody = res.body;
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
      const durationMs = Math.round(performance.now() - started);
      const ok = status !== null && status >= 200 && status < 300;
      return async (tx) => {
        const now = deps.now();
        const at = now.toISOString();
        await tx.insert(webhookAttempts).values({ tenantId: d.tenantId, deliveryId: d.id, attempt, statusCode: status, responseBody, error, durationMs, at });
        const outcome = {
          delivery_id: d.id,
          webhook_id: d.webhookId,
          tenant_id: d.tenantId,
          event: d.event,
          attempt,
          status_code: status,
          duration_ms: durationMs,
        };
        if (ok) {
          await tx
            .update(webhookDeliveries)
            .set({
              state: 'entregado',
              attempts: attempt,
              lastStatusCode: status,
              lastResponseBody: responseBody,
              lastError: null,
              nextAttemptAt: null,
              deliveredAt: at,
              updatedAt: at,
            })
            .where(eq(webhookDeliveries.id, d.id));
          await tx.update(webhooks).set({ consecutiveFailures: 0, updatedAt: at }).where(eq(webhooks.id, d.webhookId));
          return () => deps.logger.info('webhook delivered', outcome);
        }
        const failures = (
          await tx
            .update(webhooks)
            .set({ consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1`, updatedAt: at })
            .where(eq(webhooks.id, d.webhookId))
            .returning({ failures: webhooks.consecutiveFailures })
        )[0]!.failures;
        const gone = status === 410;
        const delay = gone ? undefined : nextDelayMs(deps.retrySchedule, attempt, retryAfter);
        const next = delay === undefined ? null : new Date(now.getTime() + delay).toISOString();
        await tx
          .update(webhookDeliveries)
          .set({
            state: next ? 'pendiente' : 'fallido',
            attempts: attempt,
            lastStatusCode: status,
            lastResponseBody: responseBody,
            lastError: error,
            nextAttemptAt: next,
            updatedAt: at,
          })
          .where(eq(webhookDeliveries.id, d.id));
        if (gone) await tx.update(webhooks).set({ estado: 'DESACTIVADO', updatedAt: at }).where(eq(webhooks.id, d.webhookId));
        else if (failures >= PAUSE_AFTER_FAILURES)
          await tx
            .update(webhooks)
            .set({ estado: 'PAUSADO', updatedAt: at })
            .where(and(eq(webhooks.id, d.webhookId), eq(webhooks.estado, 'ACTIVO')));
        else if (next)
          await enqueueDelivery(tx, now, { tenantId: d.tenantId, environment: d.environment, webhookId: d.webhookId, deliveryId: d.id, runAt: new Date(next) });
        return () =>
          deps.logger.warn('webhook delivery failed', {
            ...outcome,
            error: error ?? `HTTP ${status}`,
            next_attempt_at: next,
            state: next ? 'pendiente' : 'fallido',
          });
      };
    },
  };
}
