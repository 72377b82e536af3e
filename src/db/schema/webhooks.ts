import { sql } from 'drizzle-orm';
import { blob, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, tenants } from './identity.ts';

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

export const WEBHOOK_ESTADOS = ['ACTIVO', 'PAUSADO', 'DESACTIVADO'] as const;
export type WebhookEstado = (typeof WEBHOOK_ESTADOS)[number];
export const DELIVERY_STATES = ['pendiente', 'entregado', 'fallido'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Subscriptions. The signing secret is stored sealed under the master key (it must be recoverable to sign). */
export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    url: text('url').notNull(),
    events: text('events', { mode: 'json' }).notNull().$type<string[]>(),
    secretSealed: blob('secret_sealed', { mode: 'buffer' }).notNull(),
    estado: text('estado', { enum: WEBHOOK_ESTADOS }).notNull().default('ACTIVO'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [index('webhooks_tenant_idx').on(t.tenantId, t.environment, t.estado)],
);

/** One per event and subscribed webhook. `body` is the exact bytes sent on every attempt (same signature input). */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    webhookId: text('webhook_id').notNull().references(() => webhooks.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    event: text('event').notNull(),
    body: text('body').notNull(),
    state: text('state', { enum: DELIVERY_STATES }).notNull().default('pendiente'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastResponseBody: text('last_response_body'),
    lastError: text('last_error'),
    nextAttemptAt: text('next_attempt_at'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
    deliveredAt: text('delivered_at'),
  },
  (t) => [index('deliveries_webhook_idx').on(t.webhookId, t.createdAt), index('deliveries_pending_idx').on(t.webhookId, t.state)],
);

/** Every HTTP attempt of a delivery, for the history. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    deliveryId: text('delivery_id').notNull().references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    responseBody: text('response_body'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    at: text('at').notNull(),
  },
  (t) => [index('attempts_delivery_idx').on(t.deliveryId, t.attempt)],
);
