import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { actorOf, type BackendEnv } from '../../lib/backend.ts';
import { forbidden } from '../../lib/service-error.ts';
import { DeletedSchema, errorResponse, errorResponses, jsonBody, jsonResponse, paginated, PaginationQuery } from '../../lib/schemas.ts';
import type { WebhookDeliveryDeps } from './delivery.ts';
import { WebhookCreateExamples, WebhookPatchExamples, WebhookRotateExamples } from './examples.ts';
import {
  DeliveryListQuery,
  DeliveryParams,
  DeliverySchema,
  WebhookCreatedSchema,
  WebhookCreateSchema,
  WebhookParams as Params,
  WebhookPatchSchema,
  WebhookRotatedSchema,
  WebhookRotateSchema,
  WebhookSchema,
} from './schemas.ts';
import {
  createWebhook,
  deleteWebhook,
  resumeCreateWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  resumeRotateWebhookSecret,
  retryWebhookDelivery,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from './service.ts';

const errors = errorResponses('invoices');

const tags = ['Webhooks'];
const common = { ...errors.unauthenticated, 403: errorResponse('API key or ADMIN required') };

/** The spec: an API key, or a JWT with role ADMIN. */
const apiKeyOrAdmin: MiddlewareHandler<BackendEnv> = async (c, next) => {
  const actor = actorOf(c);
  if (actor.type !== 'api_key' && actor.role !== 'ADMIN') throw forbidden('Webhooks need an API key or a user with role ADMIN');
  await next();
};

export function mountWebhookRoutes(app: OpenAPIHono<BackendEnv>, deps: WebhookDeliveryDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/webhooks',
      tags,
      operationId: 'createWebhook',
      summary: 'Subscribe a URL to events',
      description:
        "Deliveries: POST with body `{ event, tenant_id, created_at, data }` (the data of every cfdi.* event carries the invoice's external_id and metadata); headers X-FC-Event, X-FC-Signature (`sha256=` + hex HMAC-SHA256 of the raw body " +
        'keyed with the whole secret string), X-FC-Delivery-Id (same on retries: dedupe on it), X-FC-Timestamp, and Standard Webhooks headers webhook-id, ' +
        'webhook-timestamp, webhook-signature (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed with the base64-decoded part after `whsec_`; ' +
        "after a rotation, also the previous secret's, space-separated, until it expires: see rotateWebhookSecret). " +
        '10 s timeout, redirects not followed, any 2xx is success; retries after 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (±10 %), or later ' +
        'when the receiver sends Retry-After; 410 Gone disables the webhook; 10 consecutive failures pause it. In test and live mode alike the URL ' +
        '(every address its host resolves to) must be public: private, loopback, link-local, CGNAT, reserved and cloud metadata addresses, also ' +
        'inside IPv4-mapped, NAT64, 6to4 and Teredo IPv6 forms, answer 400, on create and PATCH; each attempt checks again and connects to the ' +
        "address it checked. A tenant's deliveries run at most 16 at a time (8 per webhook).",
      middleware: [apiKeyOrAdmin] as const,
      request: { body: jsonBody(WebhookCreateSchema, WebhookCreateExamples) },
      responses: {
        201: jsonResponse(WebhookCreatedSchema, 'Created; the secret is shown once'),
        400: errorResponse('Invalid events, or a URL that is not http(s), carries credentials, does not resolve or is not public'),
        ...common,
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const created = claim?.resumed
        ? await resumeCreateWebhook(deps, actorOf(c), claim.resumed)
        : await createWebhook(deps, actorOf(c), c.req.valid('json'), claim?.bind);
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/webhooks',
      tags,
      operationId: 'listWebhooks',
      summary: "The tenant's webhooks in this environment",
      middleware: [apiKeyOrAdmin] as const,
      request: { query: PaginationQuery },
      responses: { 200: jsonResponse(paginated(WebhookSchema), 'A page of webhooks'), ...errors.invalidQuery, ...common },
    }),
    async (c) => c.json(await listWebhooks(deps, actorOf(c), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/webhooks/{id}',
      tags,
      operationId: 'getWebhook',
      summary: 'Get a webhook',
      middleware: [apiKeyOrAdmin] as const,
      request: { params: Params },
      responses: { 200: jsonResponse(WebhookSchema, 'The webhook'), 404: errorResponse('No such webhook'), ...common },
    }),
    async (c) => c.json(await getWebhook(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/api/v1/webhooks/{id}',
      tags,
      operationId: 'updateWebhook',
      summary: 'Change url, events or estado (ACTIVO resumes a paused webhook and sends what is pending)',
      middleware: [apiKeyOrAdmin] as const,
      request: {
        params: Params,
        body: jsonBody(WebhookPatchSchema, WebhookPatchExamples),
      },
      responses: {
        200: jsonResponse(WebhookSchema, 'Updated'),
        400: errorResponse('Invalid input, or a URL that is not public (see createWebhook)'),
        404: errorResponse('No such webhook'),
        ...common,
      },
    }),
    async (c) => c.json(await updateWebhook(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/api/v1/webhooks/{id}',
      tags,
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook and its delivery history',
      middleware: [apiKeyOrAdmin] as const,
      request: { params: Params },
      responses: { 200: jsonResponse(DeletedSchema, 'Deleted'), 404: errorResponse('No such webhook'), ...common },
    }),
    async (c) => c.json(await deleteWebhook(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/webhooks/{id}/deliveries',
      tags,
      operationId: 'listWebhookDeliveries',
      summary: 'Delivery history, newest first, with every attempt',
      description: "With `cfdi_id`, only the deliveries of that CFDI's events (cfdi.timbrado, cfdi.cancelado, cfdi.email_enviado…).",
      middleware: [apiKeyOrAdmin] as const,
      request: { params: Params, query: DeliveryListQuery },
      responses: {
        200: jsonResponse(paginated(DeliverySchema), 'A page of deliveries'),
        ...errors.invalidQuery,
        404: errorResponse('No such webhook'),
        ...common,
      },
    }),
    async (c) => c.json(await listWebhookDeliveries(deps, actorOf(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/webhooks/{id}/test',
      tags,
      operationId: 'testWebhook',
      summary: 'Send a synthetic webhook.test event; answers with the delivery after its first attempt',
      description: 'Only an ACTIVO webhook sends anything: a PAUSADO or DESACTIVADO one answers 409 (PATCH estado ACTIVO first).',
      middleware: [apiKeyOrAdmin] as const,
      request: { params: Params },
      responses: {
        200: jsonResponse(DeliverySchema, 'The delivery'),
        404: errorResponse('No such webhook'),
        409: errorResponse('The webhook is not ACTIVO'),
        ...common,
      },
    }),
    async (c) => c.json(await testWebhook(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry',
      tags,
      operationId: 'retryWebhookDelivery',
      summary: 'Send a delivery again now (same delivery id, same body)',
      middleware: [apiKeyOrAdmin] as const,
      request: { params: DeliveryParams },
      responses: { 200: jsonResponse(DeliverySchema, 'The delivery after the new attempt'), 404: errorResponse('No such webhook or delivery'), ...common },
    }),
    async (c) => {
      const params = c.req.valid('param');
      return c.json(await retryWebhookDelivery(deps, actorOf(c), params.id, params.delivery_id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/webhooks/{id}/rotate-secret',
      tags,
      operationId: 'rotateWebhookSecret',
      summary: 'Replace the signing secret; the new one is shown once, the old one keeps signing beside it for a while',
      description:
        'Answers the webhook with its new secret (shown only in this response, as on create). Until `previous_secret_expires_at` ' +
        '(now + `expire_previous_in_hours`, default 24, at most 72; 0 = the old secret stops at once) every delivery carries both: ' +
        'X-FC-Signature is made with the new secret only, and webhook-signature lists `v1,<new> v1,<previous>` (Standard Webhooks ' +
        'allows several space-separated signatures: accept the request when one verifies). Rotating again during an overlap makes the ' +
        'secret current until then the previous one, and the older one stops. The body is optional. Idempotency-Key: a repeat with the ' +
        'same key answers the stored answer of the first rotation, or, when that request died after rotating, the webhook with its ' +
        'current secret; it never rotates twice. Without a key every request rotates.',
      middleware: [apiKeyOrAdmin] as const,
      request: { params: Params, body: { ...jsonBody(WebhookRotateSchema, WebhookRotateExamples), required: false } },
      responses: {
        200: jsonResponse(WebhookRotatedSchema, 'Rotated; the new secret is shown once'),
        400: errorResponse('Invalid body: expire_previous_in_hours is not a whole number from 0 to 72, or an unknown field'),
        404: errorResponse('No such webhook'),
        ...common,
      },
    }),
    async (c) => {
      // The body is optional: without one the defaults apply, but a body in another content type is refused, not ignored.
      const type = c.req.header('content-type');
      if (type && !/^application\/json\b/i.test(type)) throw new HTTPException(415);
      const claim = c.get('idempotency');
      const id = c.req.valid('param').id;
      const rotated = claim?.resumed
        ? await resumeRotateWebhookSecret(deps, actorOf(c), claim.resumed)
        : await rotateWebhookSecret(deps, actorOf(c), id, c.req.valid('json'), claim?.bind);
      return c.json(rotated, 200);
    },
  );
}
