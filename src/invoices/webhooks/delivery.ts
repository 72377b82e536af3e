import { createHmac, randomUUID } from 'node:crypto';
import { statement } from '../../db/prepared.ts';
import type { Db } from '../../db/client.ts';
import type { Environment } from '../../db/schema/index.ts';
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
export async function enqueueDelivery(tx: DbOrTx, now: Date, d: { tenantId: string; environment: Environment; webhookId: string; deliveryId: string; runAt?: Date }) {
  await enqueue(tx, now, { type: DELIVER_JOB, tenantId: d.tenantId, environment: d.environment, lane: `webhook:${d.webhookId}`, payload: { delivery_id: d.deliveryId }, runAt: d.runAt });
}

/** The spec's payload, serialised once: every attempt sends these exact bytes. */
const payloadOf = (e: EventRow) => JSON.stringify({ event: e.type, tenant_id: e.tenantId, created_at: e.createdAt, data: e.data });

/**
 * Outbox fan-out, inside the transaction that records the event: one delivery per subscribed webhook of the same
 * tenant and environment. Active webhooks get a job now; paused ones keep the delivery pending until resumed.
 */
export async function fanOut(tx: DbOrTx, e: EventRow, now: Date, only?: string): Promise<string[]> {
  const hooks = (
    only
      ? await statement(tx, "select id, events, estado from webhooks where id = ? and estado <> 'DESACTIVADO'").all(only)
      : await statement(tx, "select id, events, estado from webhooks where tenant_id = ? and environment = ? and estado <> 'DESACTIVADO'").all(e.tenantId, e.environment)
  ) as { id: string; events: string; estado: string }[];
  const ids: string[] = [];
  for (const h of hooks) {
    const subscribed = JSON.parse(h.events) as string[];
    if (!only && !subscribed.includes('*') && !subscribed.includes(e.type)) continue;
    const id = randomUUID();
    await statement(tx, 'insert into webhook_deliveries (id, tenant_id, webhook_id, event_id, event, body, state, created_at, updated_at, next_attempt_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      id, e.tenantId, h.id, e.id, e.type, payloadOf(e), 'pendiente', now.toISOString(), now.toISOString(), now.toISOString(),
    );
    if (h.estado === 'ACTIVO') await enqueueDelivery(tx, now, { tenantId: e.tenantId, environment: e.environment, webhookId: h.id, deliveryId: id });
    ids.push(id);
  }
  return ids;
}

/** Both signatures: ours (X-FC-Signature over the raw body) and Standard Webhooks' (over id.timestamp.body). */
function signatureHeaders(secret: string, deliveryId: string, event: string, body: string, timestamp: number): Record<string, string> {
  const fc = createHmac('sha256', secret).update(body).digest('hex');
  const standardKey = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const standard = createHmac('sha256', standardKey).update(`${deliveryId}.${timestamp}.${body}`).digest('base64');
  return {
    'Content-Type': 'application/json',
    'X-FC-Event': event,
    'X-FC-Signature': `sha256=${fc}`,
    'X-FC-Delivery-Id': deliveryId,
    'X-FC-Timestamp': String(timestamp),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${standard}`,
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

interface DeliveryRow {
  id: string;
  tenant_id: string;
  webhook_id: string;
  event: string;
  body: string;
  state: string;
  attempts: number;
  url: string;
  estado: string;
  secret_sealed: Buffer;
  environment: Environment;
}

/** One attempt of a delivery. Retries are scheduled by the delivery itself (the webhook schedule), not by the queue. */
export function deliveryJobHandler(deps: WebhookDeliveryDeps): JobHandler {
  return {
    async run(job) {
      const d = await statement(
        deps.db,
        `select d.id, d.tenant_id, d.webhook_id, d.event, d.body, d.state, d.attempts, w.url, w.estado, w.secret_sealed, w.environment
         from webhook_deliveries d join webhooks w on w.id = d.webhook_id where d.id = ?`,
      ).get(job.payload.delivery_id) as DeliveryRow | undefined;
      // Delivered meanwhile, deleted, or the webhook is paused/disabled: resuming re-queues what is pending.
      if (!d || d.state !== 'pendiente' || d.estado !== 'ACTIVO') return;
      const attempt = d.attempts + 1;
      const started = performance.now();
      let status: number | null = null;
      let responseBody: string | null = null;
      let error: string | null = null;
      let retryAfter: string | null = null;
      try {
        const checked = await resolveTarget(d.url, deps);
        if ('problem' in checked) throw new Error(`url ${checked.problem}`);
        const secret = openSecret(deps.masterKey, d.secret_sealed, d.webhook_id).toString('utf8');
        const res = await postPinned(checked.target, {
          body: d.body,
          headers: signatureHeaders(secret, d.id, d.event, d.body, Math.floor(deps.now().getTime() / 1000)),
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
        await statement(tx, 'insert into webhook_attempts (tenant_id, delivery_id, attempt, status_code, response_body, error, duration_ms, at) values (?, ?, ?, ?, ?, ?, ?, ?)').run(
          d.tenant_id, d.id, attempt, status, responseBody, error, durationMs, at,
        );
        const outcome = { delivery_id: d.id, webhook_id: d.webhook_id, tenant_id: d.tenant_id, event: d.event, attempt, status_code: status, duration_ms: durationMs };
        if (ok) {
          deps.logger.info('webhook delivered', outcome);
          await statement(tx, "update webhook_deliveries set state = 'entregado', attempts = ?, last_status_code = ?, last_response_body = ?, last_error = null, next_attempt_at = null, delivered_at = ?, updated_at = ? where id = ?").run(attempt, status, responseBody, at, at, d.id);
          await statement(tx, 'update webhooks set consecutive_failures = 0, updated_at = ? where id = ?').run(at, d.webhook_id);
          return;
        }
        const failures = (await statement(tx, 'update webhooks set consecutive_failures = consecutive_failures + 1, updated_at = ? where id = ? returning consecutive_failures').get(at, d.webhook_id) as { consecutive_failures: number }).consecutive_failures;
        const gone = status === 410;
        const delay = gone ? undefined : nextDelayMs(deps.retrySchedule, attempt, retryAfter);
        const next = delay === undefined ? null : new Date(now.getTime() + delay).toISOString();
        await statement(tx, 'update webhook_deliveries set state = ?, attempts = ?, last_status_code = ?, last_response_body = ?, last_error = ?, next_attempt_at = ?, updated_at = ? where id = ?').run(
          next ? 'pendiente' : 'fallido', attempt, status, responseBody, error, next, at, d.id,
        );
        deps.logger.warn('webhook delivery failed', { ...outcome, error: error ?? `HTTP ${status}`, next_attempt_at: next, state: next ? 'pendiente' : 'fallido' });
        if (gone) await statement(tx, "update webhooks set estado = 'DESACTIVADO', updated_at = ? where id = ?").run(at, d.webhook_id);
        else if (failures >= PAUSE_AFTER_FAILURES) await statement(tx, "update webhooks set estado = 'PAUSADO', updated_at = ? where id = ? and estado = 'ACTIVO'").run(at, d.webhook_id);
        else if (next) await enqueueDelivery(tx, now, { tenantId: d.tenant_id, environment: d.environment, webhookId: d.webhook_id, deliveryId: d.id, runAt: new Date(next) });
      };
    },
  };
}
