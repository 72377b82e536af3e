import { z } from '@hono/zod-openapi';
import type { auditLog } from '../../db/schema/index.ts';
import { PaginationQuery } from '../../lib/schemas.ts';

export const AuditEntrySchema = z
  .object({
    id: z.string().openapi({ example: 'aud_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    actor: z.object({
      type: z.enum(['user', 'api_key', 'system']).openapi({
        description: 'system: the service itself, e.g. cancelling a duplicate stamp after a PAC failover (id pac-failover)',
      }),
      id: z.string().openapi({ description: 'usr_…, ak_…, or what the service acted as (pac-failover)', example: 'ak_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    }),
    environment: z.enum(['test', 'live']).openapi({ description: 'The environment of the credential that acted' }),
    action: z.string().openapi({ description: 'The operation, by its operationId in this document', example: 'cancelCfdi' }),
    method: z.string().openapi({ example: 'POST' }),
    path: z.string().openapi({ example: '/api/v1/cfdis/cfdi_01jd2m3k4n5p6q7r8s9t0v1w2x/cancel' }),
    status: z.number().int().openapi({ description: 'The HTTP status it was answered with', example: 202 }),
    resource: z.object({
      type: z.string().openapi({ description: 'The path segment after /api/v1: cfdis, users, api-keys, tenants, csds, …', example: 'cfdis' }),
      id: z.string().nullable().openapi({ description: 'The id in the path, or the one a create answered with', example: 'cfdi_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    }),
    request_id: z.string().openapi({ description: 'X-Request-Id of the request', example: 'req_01jd2m3k4n5p6q7r8s000001' }),
  })
  .openapi('AuditEntry');

export const AuditQuery = PaginationQuery.extend({
  actor_id: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'actor_id', in: 'query' }, description: 'Only what this user or API key did' }),
  resource_id: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'resource_id', in: 'query' }, description: 'Only writes to this resource (cfdi_…, usr_…, …)' }),
  action: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'action', in: 'query' }, description: 'Only this operation (operationId)', example: 'cancelCfdi' }),
});

export const toAuditEntry = (r: typeof auditLog.$inferSelect): z.infer<typeof AuditEntrySchema> => ({
  id: r.id,
  created_at: r.createdAt,
  actor: { type: r.actorType, id: r.actorId },
  environment: r.environment,
  action: r.action,
  method: r.method,
  path: r.path,
  status: r.status,
  resource: { type: r.resourceType, id: r.resourceId },
  request_id: r.requestId,
});
