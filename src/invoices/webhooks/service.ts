import { randomBytes, randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gt, inArray, lt, or, sql } from 'drizzle-orm';
import { events, webhookAttempts, webhookDeliveries, webhooks } from '../../db/schema/index.ts';
import { withTransaction, type Tx } from '../../db/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { invalidInput, conflict, notFound } from '../../lib/service-error.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { openSecret, sealSecret } from '../../lib/secret-box.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { enqueueDelivery, fanOut, type WebhookDeliveryDeps } from './delivery.ts';
import { toDelivery, toWebhook, type WebhookCreate, type WebhookPatch, type WebhookRotate, type WebhookRow } from './schemas.ts';
import { webhookUrlProblem } from './target.ts';

type Delivery = typeof webhookDeliveries.$inferSelect;

const scoped = (actor: Actor) => and(eq(webhooks.tenantId, actor.tenantId), eq(webhooks.environment, actor.environment));

async function getRow(deps: WebhookDeliveryDeps, actor: Actor, id: string): Promise<WebhookRow> {
  const row = (
    await deps.db
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.id, id), scoped(actor)))
  )[0];
  if (!row) throw notFound('Webhook');
  return row;
}

async function checkUrl(deps: WebhookDeliveryDeps, url: string): Promise<void> {
  const problem = await webhookUrlProblem(url, deps);
  if (problem) throw invalidInput('Invalid webhook URL', [{ field: 'url', issue: problem }]);
}

async function deliveryRecord(deps: WebhookDeliveryDeps, d: Delivery) {
  return toDelivery(d, await deps.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, d.id)).orderBy(asc(webhookAttempts.attempt)));
}

/** Queues every pending delivery of a webhook (on resume, on manual retry). */
async function requeuePending(deps: WebhookDeliveryDeps, tx: Tx, w: WebhookRow, deliveryId?: string): Promise<void> {
  const pending = await tx
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, w.id), deliveryId ? eq(webhookDeliveries.id, deliveryId) : eq(webhookDeliveries.state, 'pendiente')));
  for (const d of pending) await enqueueDelivery(tx, deps.now(), { tenantId: w.tenantId, environment: w.environment, webhookId: w.id, deliveryId: d.id });
}

const readDelivery = async (deps: WebhookDeliveryDeps, id: string) => (await deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]!;

/** The delivery once it has more than `after` attempts (an attempt takes at most 10 s), or as it is after 12 s. */
async function waitForAttempt(deps: WebhookDeliveryDeps, id: string, after: number): Promise<Delivery> {
  deps.wakeJobs();
  for (let i = 0; i < 120; i++) {
    const d = await readDelivery(deps, id);
    if (d.attempts > after) return d;
    await Bun.sleep(100);
  }
  return readDelivery(deps, id);
}

/** POST /webhooks: the URL must be public; the secret is generated, sealed at rest and shown once. */
export async function createWebhook(deps: WebhookDeliveryDeps, actor: Actor, body: WebhookCreate, bindIdempotency?: IdempotencyClaim['bind']) {
  await checkUrl(deps, body.url);
  const id = randomUUID();
  const secret = newSecret();
  const now = deps.now().toISOString();
  // read committed: one insert and the claim's fenced bind
  await withTransaction(deps.db, { isolation: 'read committed', name: 'webhooks.create' }, async (tx) => {
    await tx.insert(webhooks).values({
      id,
      tenantId: actor.tenantId,
      environment: actor.environment,
      url: body.url,
      events: [...new Set(body.events)],
      secretSealed: sealSecret(deps.masterKey, Buffer.from(secret), id),
      createdAt: now,
      updatedAt: now,
    });
    await bindIdempotency?.(tx, id);
  });
  return { ...toWebhook(await getRow(deps, actor, id)), secret };
}

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const DEFAULT_PREVIOUS_SECRET_HOURS = 24;

const rotated = (deps: WebhookDeliveryDeps, row: WebhookRow) => ({
  ...toWebhook(row),
  secret: openSecret(deps.masterKey, row.secretSealed, row.id).toString('utf8'),
  previous_secret_expires_at: row.previousSecretSealed ? row.previousExpiresAt : null,
});

/**
 * POST /webhooks/:id/rotate-secret: a new secret, shown once; the current one becomes the previous one (replacing any
 * previous one still running) and keeps signing beside it until its expiry, so receivers can switch without a gap.
 */
export async function rotateWebhookSecret(
  deps: WebhookDeliveryDeps,
  actor: Actor,
  id: string,
  body: WebhookRotate,
  bindIdempotency?: IdempotencyClaim['bind'],
) {
  const hours = body.expire_previous_in_hours ?? DEFAULT_PREVIOUS_SECRET_HOURS;
  const now = deps.now();
  // read committed: one conditional UPDATE (the row's lock orders two rotations) and the claim's fenced bind
  const row = await withTransaction(deps.db, { isolation: 'read committed', name: 'webhooks.rotateSecret' }, async (tx) => {
    const [updated] = await tx
      .update(webhooks)
      .set({
        secretSealed: sealSecret(deps.masterKey, Buffer.from(newSecret()), id),
        previousSecretSealed: hours > 0 ? sql`${webhooks.secretSealed}` : null,
        previousExpiresAt: hours > 0 ? new Date(now.getTime() + hours * 3600_000).toISOString() : null,
        updatedAt: now.toISOString(),
      })
      .where(and(eq(webhooks.id, id), scoped(actor)))
      .returning();
    if (!updated) throw notFound('Webhook');
    await bindIdempotency?.(tx, updated.id);
    return updated;
  });
  return rotated(deps, row);
}

/** A retry of a rotation whose first request died before answering: the webhook's current secret, without rotating again. */
export const resumeRotateWebhookSecret = async (deps: WebhookDeliveryDeps, actor: Actor, id: string) => rotated(deps, await getRow(deps, actor, id));

/** A retry of a POST /webhooks whose first request died before answering: the webhook with its secret, as that answer had. */
export async function resumeCreateWebhook(deps: WebhookDeliveryDeps, actor: Actor, id: string) {
  const row = await getRow(deps, actor, id);
  return { ...toWebhook(row), secret: openSecret(deps.masterKey, row.secretSealed, id).toString('utf8') };
}

export async function listWebhooks(deps: WebhookDeliveryDeps, actor: Actor, q: { limit: number; cursor?: string }) {
  const after = decodeCursor(q.cursor);
  const rows = await deps.db
    .select()
    .from(webhooks)
    .where(and(scoped(actor), after ? gt(webhooks.id, after) : undefined))
    .orderBy(asc(webhooks.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, toWebhook);
}

export const getWebhook = async (deps: WebhookDeliveryDeps, actor: Actor, id: string) => toWebhook(await getRow(deps, actor, id));

/** PATCH /webhooks/:id: estado ACTIVO on a paused or disabled webhook resumes it and queues what is pending. */
export async function updateWebhook(deps: WebhookDeliveryDeps, actor: Actor, id: string, body: WebhookPatch) {
  const row = await getRow(deps, actor, id);
  if (body.url) await checkUrl(deps, body.url);
  const resume = body.estado === 'ACTIVO' && row.estado !== 'ACTIVO';
  // serializable: requeuePending reads the deliveries it queues
  await withTransaction(deps.db, { isolation: 'serializable', name: 'webhooks.update' }, async (tx) => {
    await tx
      .update(webhooks)
      .set({
        ...(body.url !== undefined && { url: body.url }),
        ...(body.events !== undefined && { events: [...new Set(body.events)] }),
        ...(body.estado !== undefined && { estado: body.estado }),
        ...(resume && { consecutiveFailures: 0 }),
        updatedAt: deps.now().toISOString(),
      })
      .where(eq(webhooks.id, row.id));
    if (resume) await requeuePending(deps, tx, row);
  });
  if (resume) deps.wakeJobs();
  return toWebhook(await getRow(deps, actor, row.id));
}

export async function deleteWebhook(deps: WebhookDeliveryDeps, actor: Actor, id: string) {
  const row = await getRow(deps, actor, id);
  await deps.db.delete(webhooks).where(eq(webhooks.id, row.id));
  return { id: row.id, deleted: true as const };
}

/** Delivery history, newest first. Delivery ids are random UUIDs (the spec): the cursor is (created_at, id). */
export async function listWebhookDeliveries(deps: WebhookDeliveryDeps, actor: Actor, id: string, q: { limit: number; cursor?: string; cfdi_id?: string }) {
  const row = await getRow(deps, actor, id);
  const cursor = decodeCursor(q.cursor);
  const [beforeAt, beforeId] = cursor ? cursor.split('|') : [];
  if (cursor && (!beforeAt || !beforeId)) throw invalidInput('Invalid cursor', [{ field: 'cursor', issue: 'is not a cursor returned by this API' }]);
  const rows = await deps.db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, row.id),
        // The CFDI is named inside the event's data (JSON text, written without spaces on both engines); a cfdi_ id
        // has no LIKE wildcard in it. A scan of this tenant's events: fine for a detail page, not a bulk query.
        q.cfdi_id
          ? inArray(
              webhookDeliveries.eventId,
              deps.db
                .select({ id: events.id })
                .from(events)
                .where(and(eq(events.tenantId, actor.tenantId), sql`${events.data} like ${`%"cfdi_id":"${q.cfdi_id}"%`}`)),
            )
          : undefined,
        beforeAt
          ? or(lt(webhookDeliveries.createdAt, beforeAt), and(eq(webhookDeliveries.createdAt, beforeAt), lt(webhookDeliveries.id, beforeId!)))
          : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(q.limit + 1);
  const result = page(
    rows.map((r) => ({ row: r, id: `${r.createdAt}|${r.id}` })),
    q.limit,
    (r) => r.row,
  );
  return { ...result, data: await Promise.all(result.data.map((d) => deliveryRecord(deps, d))) };
}

/** POST /webhooks/:id/test: a synthetic webhook.test event to this webhook only, answered after its first attempt. */
export async function testWebhook(deps: WebhookDeliveryDeps, actor: Actor, id: string) {
  const row = await getRow(deps, actor, id);
  if (row.estado !== 'ACTIVO')
    throw conflict(`The webhook is ${row.estado}`, [{ field: 'estado', issue: `is ${row.estado}; PATCH estado ACTIVO to send again` }]);
  const now = deps.now();
  // read committed: the event and its delivery, inserted
  const [deliveryId] = await withTransaction(deps.db, { isolation: 'read committed', name: 'webhooks.test' }, async (tx) =>
    fanOut(
      tx,
      {
        id: `evt_test_${randomUUID()}`,
        tenantId: actor.tenantId,
        environment: actor.environment,
        type: 'webhook.test',
        data: { webhook_id: row.id, message: 'Prueba de entrega' },
        createdAt: now.toISOString(),
      },
      now,
      row.id,
    ),
  );
  return deliveryRecord(deps, await waitForAttempt(deps, deliveryId!, 0));
}

/** POST /webhooks/:id/deliveries/:delivery_id/retry: the same delivery again now, answered after the new attempt. */
export async function retryWebhookDelivery(deps: WebhookDeliveryDeps, actor: Actor, id: string, deliveryId: string) {
  const row = await getRow(deps, actor, id);
  const d = (
    await deps.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, row.id)))
  )[0];
  if (!d) throw notFound('Delivery');
  const attempts = d.attempts;
  // serializable: requeuePending reads the deliveries it queues
  await withTransaction(deps.db, { isolation: 'serializable', name: 'webhooks.retry' }, async (tx) => {
    await tx.update(webhookDeliveries).set({ state: 'pendiente', nextAttemptAt: deps.now().toISOString() }).where(eq(webhookDeliveries.id, d.id));
    await requeuePending(deps, tx, row, d.id);
  });
  // A paused or disabled webhook sends nothing now: answer at once with the delivery, pending again.
  if (row.estado !== 'ACTIVO') return deliveryRecord(deps, await readDelivery(deps, d.id));
  return deliveryRecord(deps, await waitForAttempt(deps, d.id, attempts));
}
