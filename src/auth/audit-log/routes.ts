import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, jsonResponse, paginated } from '../../lib/schemas.ts';
import type { AuthDeps } from '../deps.ts';
import { AuditEntrySchema, AuditQuery } from './schemas.ts';
import { listAuditLog } from './service.ts';

const errors = errorResponses('auth');

export function mountAuditLogRoutes(app: OpenAPIHono<BackendEnv>, deps: AuthDeps) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/audit-log',
      operationId: 'listAuditLog',
      tags: ['Audit log'],
      summary: 'Who did what: every write to the tenant, newest first (ADMIN)',
      description:
        'One entry per successful write through the API (creates, updates, deletes, stamping, cancellation, logins, token refreshes and logouts; ' +
        'not reads, not refused requests, not replays of an Idempotency-Key), in every environment. Append-only: entries are never changed or removed.',
      middleware: [requireRole('ADMIN')] as const,
      request: { query: AuditQuery },
      responses: {
        200: jsonResponse(paginated(AuditEntrySchema), 'A page of audit entries'),
        ...errors.unauthenticated,
        403: errorResponse('Not ADMIN'),
        ...errors.invalidInput,
      },
    }),
    async (c) => c.json(await listAuditLog(deps, actorOf(c), c.req.valid('query')), 200),
  );
}
