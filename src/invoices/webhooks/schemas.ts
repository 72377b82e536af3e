import { z } from '@hono/zod-openapi';
import { PaginationQuery } from '../../lib/schemas.ts';
import { DELIVERY_STATES, WEBHOOK_ESTADOS, type webhookAttempts, type webhookDeliveries, type webhooks } from '../../db/schema/index.ts';
import { EVENT_TYPES } from '../events.ts';

const EventName = z.enum([...EVENT_TYPES, '*'], { message: `must be one of ${[...EVENT_TYPES, '*'].join(', ')}` });

export const WebhookSchema = z
  .object({
    id: z.string().openapi({ format: 'uuid' }),
    url: z.string(),
    events: z.array(z.string()),
    estado: z
      .enum(WEBHOOK_ESTADOS)
      .openapi({ description: 'ACTIVO; PAUSADO after 10 consecutive failures (PATCH estado ACTIVO resumes); DESACTIVADO after a 410 Gone' }),
    consecutive_failures: z.number().int(),
    environment: z.enum(['test', 'live']),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Webhook');
export const WebhookCreatedSchema = WebhookSchema.extend({ secret: z.string().openapi({ description: 'whsec_…, shown only in this response' }) }).openapi(
  'WebhookCreated',
);
export const WebhookRotatedSchema = WebhookCreatedSchema.extend({
  previous_secret_expires_at: z.string().nullable().openapi({
    description: 'Until when deliveries also carry a signature made with the secret before this rotation (null: the old secret stopped at once)',
  }),
}).openapi('WebhookRotated');

const AttemptSchema = z.object({
  attempt: z.number().int(),
  status_code: z.number().int().nullable(),
  response_body: z.string().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  at: z.string(),
});
export const DeliverySchema = z
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

/** GET /webhooks/{id}/deliveries: paging, and only the deliveries of one CFDI's events when asked. */
export const DeliveryListQuery = PaginationQuery.extend({
  cfdi_id: z
    .string()
    .regex(/^cfdi_[0-9a-z]{26}$/, 'must be a cfdi_ id')
    .optional()
    .openapi({ param: { name: 'cfdi_id', in: 'query' }, description: "Only the deliveries of this CFDI's events (its data.cfdi_id)" }),
});

export const WebhookParams = z.object({
  id: z
    .string()
    .max(64)
    .openapi({ param: { name: 'id', in: 'path' }, format: 'uuid' }),
});
export const DeliveryParams = WebhookParams.extend({
  delivery_id: z
    .string()
    .max(64)
    .openapi({ param: { name: 'delivery_id', in: 'path' }, format: 'uuid' }),
});
const Url = z.string().max(2048).openapi({ example: 'https://erp.example.com/hooks/cfdi' });

export const WebhookCreateSchema = z
  .object({ url: Url, events: z.array(EventName).min(1, 'must name at least one event').max(20) })
  .strict()
  .openapi('WebhookCreate');
export const WebhookPatchSchema = z
  .object({ url: Url.optional(), events: z.array(EventName).min(1).max(20).optional(), estado: z.enum(['ACTIVO', 'PAUSADO']).optional() })
  .strict()
  .openapi('WebhookPatch');
export const WebhookRotateSchema = z
  .object({
    expire_previous_in_hours: z.number().int().min(0).max(72).optional().openapi({
      description: 'How long the previous secret keeps signing deliveries beside the new one, in hours (default 24; 0 = it stops at once)',
      example: 24,
    }),
  })
  .strict()
  .openapi('WebhookRotate');
export type WebhookCreate = z.infer<typeof WebhookCreateSchema>;
export type WebhookPatch = z.infer<typeof WebhookPatchSchema>;
export type WebhookRotate = z.infer<typeof WebhookRotateSchema>;

export type WebhookRow = typeof webhooks.$inferSelect;
export const toWebhook = (w: WebhookRow) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  estado: w.estado,
  consecutive_failures: w.consecutiveFailures,
  environment: w.environment,
  created_at: w.createdAt,
  updated_at: w.updatedAt,
});

/** A delivery with its attempts, oldest first; `next_attempt_at` only while it is pending. */
export const toDelivery = (d: typeof webhookDeliveries.$inferSelect, attempts: (typeof webhookAttempts.$inferSelect)[]): z.infer<typeof DeliverySchema> => ({
  id: d.id,
  event: d.event,
  state: d.state,
  attempts: d.attempts,
  status_code: d.lastStatusCode,
  response_body: d.lastResponseBody,
  error: d.lastError,
  next_attempt_at: d.state === 'pendiente' ? d.nextAttemptAt : null,
  created_at: d.createdAt,
  delivered_at: d.deliveredAt,
  history: attempts.map((a) => ({
    attempt: a.attempt,
    status_code: a.statusCode,
    response_body: a.responseBody,
    error: a.error,
    duration_ms: a.durationMs,
    at: a.at,
  })),
});
