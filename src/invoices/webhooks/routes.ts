import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { randomBytes, randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gt, lt, or } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { DELIVERY_STATES, webhookAttempts, webhookDeliveries, webhooks, WEBHOOK_ESTADOS } from '../../db/schema/index.ts';
import { actorOf, type Actor, type BackendEnv } from '../../lib/backend.ts';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { DeletedSchema, errorResponse, jsonBody, jsonResponse, paginated, PaginationQuery } from '../../lib/schemas.ts';
import { sealSecret } from '../../lib/secret-box.ts';
import { EVENT_TYPES } from '../events.ts';
import { enqueueDelivery, fanOut, type WebhookDeliveryDeps } from './delivery.ts';
import { webhookUrlProblem } from './target.ts';
import { WebhookCreateExamples, WebhookPatchExamples } from './examples.ts';
import { withTransaction, type Tx } from '../../db/index.ts';

const tags = ['Webhooks'];
const EventName = z.enum([...EVENT_TYPES, '*'], { message: `must be one of ${[...EVENT_TYPES, '*'].join(', ')}` });

const WebhookSchema = z
  .object({
    id: z.string().openapi({ format: 'uuid' }),
    url: z.string(),
    events: z.array(z.string()),
    estado: z.enum(WEBHOOK_ESTADOS).openapi({ description: 'ACTIVO; PAUSADO after 10 consecutive failures (PATCH estado ACTIVO resumes); DESACTIVADO after a 410 Gone' }),
    consecutive_failures: z.number().int(),
    environment: z.enum(['test', 'live']),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Webhook');
const WebhookCreatedSchema = WebhookSchema.extend({ secret: z.string().openapi({ description: 'whsec_…, shown only in this response' }) }).openapi('WebhookCreated');

const AttemptSchema = z.object({ attempt: z.number().int(), status_code: z.number().int().nullable(), response_body: z.string().nullable(), error: z.string().nullable(), duration_ms: z.number().int(), at: z.string() });
const DeliverySchema = z
  .object({
    id: z.string().openapi({ format: 'uuid', description: 'Sent as X-FC-Delivery-Id and webhook-id on every attempt' }),
    event: z.string(),
    state: z.enum(DELIVERY_STATES),
    attempts: z.number().int(),
    status_code: z.number().int().nullable().openapi({ description: 'Of the last attempt' }),
    response_body: z.string().nullable().openapi({ description: 'Of the last attempt, first 1,024 characters' }),
    error: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
    history: z.array(AttemptSchema),
  })
  .openapi('WebhookDelivery');

const Params = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, format: 'uuid' }) });
const DeliveryParams = Params.extend({ delivery_id: z.string().max(64).openapi({ param: { name: 'delivery_id', in: 'path' }, format: 'uuid' }) });
const Url = z.string().max(2048).openapi({ example: 'https://erp.example.com/hooks/cfdi' });

type Row = typeof webhooks.$inferSelect;
const toWebhook = (w: Row) => ({
  id: w.id, url: w.url, events: w.events, estado: w.estado, consecutive_failures: w.consecutiveFailures,
  environment: w.environment, created_at: w.createdAt, updated_at: w.updatedAt,
});

/** The spec: an API key, or a JWT with role ADMIN. */
const apiKeyOrAdmin: MiddlewareHandler<BackendEnv> = async (c, next) => {
  const actor = actorOf(c);
  if (actor.type !== 'api_key' && actor.role !== 'ADMIN') throw forbidden('Webhooks need an API key or a user with role ADMIN');
  await next();
};

export function mountWebhookRoutes(app: OpenAPIHono<BackendEnv>, deps: WebhookDeliveryDeps) {
  const scoped = (actor: Actor) => and(eq(webhooks.tenantId, actor.tenantId), eq(webhooks.environment, actor.environment));
  const getRow = async (actor: Actor, id: string) => {
    const row = (await deps.db.select().from(webhooks).where(and(eq(webhooks.id, id), scoped(actor))))[0];
    if (!row) throw notFound('Webhook');
    return row;
  };
  const checkUrl = async (url: string) => {
    const problem = await webhookUrlProblem(url, deps);
    if (problem) throw badRequest('Invalid webhook URL', [{ field: 'url', issue: problem }]);
  };
  const deliveryRecord = async (d: typeof webhookDeliveries.$inferSelect) => ({
    id: d.id, event: d.event, state: d.state, attempts: d.attempts, status_code: d.lastStatusCode, response_body: d.lastResponseBody,
    error: d.lastError, next_attempt_at: d.state === 'pendiente' ? d.nextAttemptAt : null, created_at: d.createdAt, delivered_at: d.deliveredAt,
    history: (await deps.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, d.id)).orderBy(asc(webhookAttempts.attempt)))
      .map((a) => ({ attempt: a.attempt, status_code: a.statusCode, response_body: a.responseBody, error: a.error, duration_ms: a.durationMs, at: a.at })),
  });
  /** Queues every pending delivery of a webhook (on resume, on manual retry). */
  const requeuePending = async (tx: Tx, w: Row, deliveryId?: string) => {
    const pending = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhookId, w.id), deliveryId ? eq(webhookDeliveries.id, deliveryId) : eq(webhookDeliveries.state, 'pendiente')));
    for (const d of pending) await enqueueDelivery(tx, deps.now(), { tenantId: w.tenantId, environment: w.environment, webhookId: w.id, deliveryId: d.id });
  };
  const common = { 401: errorResponse('Missing or invalid credential'), 403: errorResponse('API key or ADMIN required') };

  app.openapi(
    createRoute({
      method: 'post', path: '/api/v1/webhooks', tags, operationId: 'createWebhook', summary: 'Subscribe a URL to events',
      description:
        'Deliveries: POST with body `{ event, tenant_id, created_at, data }` (the data of every cfdi.* event carries the invoice\'s external_id and metadata); headers X-FC-Event, X-FC-Signature (`sha256=` + hex HMAC-SHA256 of the raw body ' +
        'keyed with the whole secret string), X-FC-Delivery-Id (same on retries: dedupe on it), X-FC-Timestamp, and Standard Webhooks headers webhook-id, ' +
        'webhook-timestamp, webhook-signature (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed with the base64-decoded part after `whsec_`). ' +
        '10 s timeout, redirects not followed, any 2xx is success; retries after 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (±10 %), or later ' +
        'when the receiver sends Retry-After; 410 Gone disables the webhook; 10 consecutive failures pause it. In test and live mode alike the URL ' +
        '(every address its host resolves to) must be public: private, loopback, link-local, CGNAT, reserved and cloud metadata addresses, also ' +
        'inside IPv4-mapped, NAT64, 6to4 and Teredo IPv6 forms, answer 400, on create and PATCH; each attempt checks again and connects to the ' +
        'address it checked. A tenant\'s deliveries run at most 16 at a time (8 per webhook).',
      middleware: [apiKeyOrAdmin] as const,
      request: { body: jsonBody(z.object({ url: Url, events: z.array(EventName).min(1, 'must name at least one event').max(20) }).strict().openapi('WebhookCreate'), WebhookCreateExamples) },
      responses: { 201: jsonResponse(WebhookCreatedSchema, 'Created; the secret is shown once'), 400: errorResponse('Invalid events, or a URL that is not http(s), carries credentials, does not resolve or is not public'), ...common },
    }),
    async (c) => {
      const actor = actorOf(c);
      const body = c.req.valid('json');
      await checkUrl(body.url);
      const id = randomUUID();
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      const now = deps.now().toISOString();
      await deps.db.insert(webhooks).values({
        id, tenantId: actor.tenantId, environment: actor.environment, url: body.url, events: [...new Set(body.events)],
        secretSealed: sealSecret(deps.masterKey, Buffer.from(secret), id), createdAt: now, updatedAt: now,
      });
      return c.json({ ...toWebhook(await getRow(actor, id)), secret }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/webhooks', tags, operationId: 'listWebhooks', summary: 'The tenant\'s webhooks in this environment',
      middleware: [apiKeyOrAdmin] as const,
      request: { query: PaginationQuery },
      responses: { 200: jsonResponse(paginated(WebhookSchema), 'A page of webhooks'), 400: errorResponse('Invalid query'), ...common },
    }),
    async (c) => {
      const actor = actorOf(c);
      const q = c.req.valid('query');
      const after = decodeCursor(q.cursor, 400);
      const rows = await deps.db.select().from(webhooks).where(and(scoped(actor), after ? gt(webhooks.id, after) : undefined)).orderBy(asc(webhooks.id)).limit(q.limit + 1);
      return c.json(page(rows, q.limit, toWebhook), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/webhooks/{id}', tags, operationId: 'getWebhook', summary: 'Get a webhook',
      middleware: [apiKeyOrAdmin] as const,
      request: { params: Params },
      responses: { 200: jsonResponse(WebhookSchema, 'The webhook'), 404: errorResponse('No such webhook'), ...common },
    }),
    async (c) => c.json(toWebhook(await getRow(actorOf(c), c.req.valid('param').id)), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch', path: '/api/v1/webhooks/{id}', tags, operationId: 'updateWebhook',
      summary: 'Change url, events or estado (ACTIVO resumes a paused webhook and sends what is pending)',
      middleware: [apiKeyOrAdmin] as const,
      request: {
        params: Params,
        body: jsonBody(z.object({ url: Url.optional(), events: z.array(EventName).min(1).max(20).optional(), estado: z.enum(['ACTIVO', 'PAUSADO']).optional() }).strict().openapi('WebhookPatch'), WebhookPatchExamples),
      },
      responses: { 200: jsonResponse(WebhookSchema, 'Updated'), 400: errorResponse('Invalid input, or a URL that is not public (see createWebhook)'), 404: errorResponse('No such webhook'), ...common },
    }),
    async (c) => {
      const actor = actorOf(c);
      const row = await getRow(actor, c.req.valid('param').id);
      const body = c.req.valid('json');
      if (body.url) await checkUrl(body.url);
      const resume = body.estado === 'ACTIVO' && row.estado !== 'ACTIVO';
      await withTransaction(deps.db, async (tx) => {
        await tx.update(webhooks)
          .set({
            ...(body.url !== undefined && { url: body.url }),
            ...(body.events !== undefined && { events: [...new Set(body.events)] }),
            ...(body.estado !== undefined && { estado: body.estado }),
            ...(resume && { consecutiveFailures: 0 }),
            updatedAt: deps.now().toISOString(),
          })
          .where(eq(webhooks.id, row.id));
        if (resume) await requeuePending(tx, row);
      });
      if (resume) deps.wakeJobs();
      return c.json(toWebhook(await getRow(actor, row.id)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete', path: '/api/v1/webhooks/{id}', tags, operationId: 'deleteWebhook', summary: 'Delete a webhook and its delivery history',
      middleware: [apiKeyOrAdmin] as const,
      request: { params: Params },
      responses: { 200: jsonResponse(DeletedSchema, 'Deleted'), 404: errorResponse('No such webhook'), ...common },
    }),
    async (c) => {
      const row = await getRow(actorOf(c), c.req.valid('param').id);
      await deps.db.delete(webhooks).where(eq(webhooks.id, row.id));
      return c.json({ id: row.id, deleted: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/webhooks/{id}/deliveries', tags, operationId: 'listWebhookDeliveries', summary: 'Delivery history, newest first, with every attempt',
      middleware: [apiKeyOrAdmin] as const,
      request: { params: Params, query: PaginationQuery },
      responses: { 200: jsonResponse(paginated(DeliverySchema), 'A page of deliveries'), 400: errorResponse('Invalid query'), 404: errorResponse('No such webhook'), ...common },
    }),
    async (c) => {
      const row = await getRow(actorOf(c), c.req.valid('param').id);
      const q = c.req.valid('query');
      // Delivery ids are random UUIDs (the spec): the cursor is (created_at, id).
      const cursor = decodeCursor(q.cursor, 400);
      const [beforeAt, beforeId] = cursor ? cursor.split('|') : [];
      if (cursor && (!beforeAt || !beforeId)) throw badRequest('Invalid cursor', [{ field: 'cursor', issue: 'is not a cursor returned by this API' }]);
      const rows = await deps.db
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.webhookId, row.id),
            beforeAt ? or(lt(webhookDeliveries.createdAt, beforeAt), and(eq(webhookDeliveries.createdAt, beforeAt), lt(webhookDeliveries.id, beforeId!))) : undefined,
          ),
        )
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(q.limit + 1);
      const result = page(rows.map((r) => ({ row: r, id: `${r.createdAt}|${r.id}` })), q.limit, (r) => r.row);
      return c.json({ ...result, data: await Promise.all(result.data.map(deliveryRecord)) }, 200);
    },
  );

  const readDelivery = async (id: string) => (await deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]!;
  /** The delivery once it has more than `after` attempts (an attempt takes at most 10 s), or as it is after 12 s. */
  const waitForAttempt = async (id: string, after: number) => {
    deps.wakeJobs();
    for (let i = 0; i < 120; i++) {
      const d = await readDelivery(id);
      if (d.attempts > after) return d;
      await Bun.sleep(100);
    }
    return readDelivery(id);
  };

  app.openapi(
    createRoute({
      method: 'post', path: '/api/v1/webhooks/{id}/test', tags, operationId: 'testWebhook',
      summary: 'Send a synthetic webhook.test event; answers with the delivery after its first attempt',
      description: 'Only an ACTIVO webhook sends anything: a PAUSADO or DESACTIVADO one answers 409 (PATCH estado ACTIVO first).',
      middleware: [apiKeyOrAdmin] as const,
      request: { params: Params },
      responses: { 200: jsonResponse(DeliverySchema, 'The delivery'), 404: errorResponse('No such webhook'), 409: errorResponse('The webhook is not ACTIVO'), ...common },
    }),
    async (c) => {
      const actor = actorOf(c);
      const row = await getRow(actor, c.req.valid('param').id);
      if (row.estado !== 'ACTIVO') throw conflict(`The webhook is ${row.estado}`, [{ field: 'estado', issue: `is ${row.estado}; PATCH estado ACTIVO to send again` }]);
      const now = deps.now();
      const [deliveryId] = await withTransaction(deps.db, async (tx) =>
        fanOut(tx, { id: `evt_test_${randomUUID()}`, tenantId: actor.tenantId, environment: actor.environment, type: 'webhook.test', data: { webhook_id: row.id, message: 'Prueba de entrega' }, createdAt: now.toISOString() }, now, row.id),
      );
      return c.json(await deliveryRecord(await waitForAttempt(deliveryId!, 0)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post', path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry', tags, operationId: 'retryWebhookDelivery',
      summary: 'Send a delivery again now (same delivery id, same body)',
      middleware: [apiKeyOrAdmin] as const,
      request: { params: DeliveryParams },
      responses: { 200: jsonResponse(DeliverySchema, 'The delivery after the new attempt'), 404: errorResponse('No such webhook or delivery'), ...common },
    }),
    async (c) => {
      const params = c.req.valid('param');
      const row = await getRow(actorOf(c), params.id);
      const d = (await deps.db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.id, params.delivery_id), eq(webhookDeliveries.webhookId, row.id))))[0];
      if (!d) throw notFound('Delivery');
      const attempts = d.attempts;
      await withTransaction(deps.db, async (tx) => {
        await tx.update(webhookDeliveries).set({ state: 'pendiente', nextAttemptAt: deps.now().toISOString() }).where(eq(webhookDeliveries.id, d.id));
        await requeuePending(tx, row, d.id);
      });
      // A paused or disabled webhook sends nothing now: answer at once with the delivery, pending again.
      if (row.estado !== 'ACTIVO') return c.json(await deliveryRecord(await readDelivery(d.id)), 200);
      return c.json(await deliveryRecord(await waitForAttempt(d.id, attempts)), 200);
    },
  );
}
