import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS } from './columns.ts';

/**
 * One row per successful write through the API: who (user or API key), what (the operation), which resource, when,
 * and the request id. Append-only: SQLite triggers (migration 0015) refuse UPDATE and DELETE. No foreign key to the
 * tenant, so the record outlives what it describes.
 */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    actorType: text('actor_type', { enum: ['user', 'api_key', 'system'] }).notNull(),
    actorId: text('actor_id').notNull(),
    /** The OpenAPI operationId: createUser, issueCfdi, cancelCfdi, … */
    action: text('action').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    status: integer('status').notNull(),
    /** The first path segment after /api/v1 (cfdis, users, api-keys, …) and the id the write was about. */
    resourceType: text('resource_type').notNull(),
    resourceId: text('resource_id'),
    requestId: text('request_id').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('audit_log_tenant_idx').on(t.tenantId, t.id), index('audit_log_resource_idx').on(t.tenantId, t.resourceId)],
);
