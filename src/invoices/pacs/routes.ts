import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, jsonResponse } from '../../lib/schemas.ts';
import type { PacRouter } from '../../pac/failover.ts';
import { PacListSchema, pacStateOut } from './schemas.ts';

const errors = errorResponses('invoices');

/** The sandbox stamps in this process: nothing to fail over, its circuit never opens. */
const SANDBOX = { name: 'sandbox', circuit: 'closed', consecutive_failures: 0, last_error: null, last_error_at: null, latency_ms: null } as const;

export function mountPacRoutes(app: OpenAPIHono<BackendEnv>, deps: { pacRouter?: PacRouter }) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/pacs',
      tags: ['PACs'],
      operationId: 'listPacs',
      summary: 'The stamping providers of your environment, their circuit state, last error and latency (ADMIN)',
      description:
        'Live (an sk_live_ key, or a session with `X-Environment: live`): the PACs the operator configured, in the order stamping tries them, as this ' +
        'instance sees them (each instance keeps its own circuits; every instance follows the same rules for a given document), an empty list when ' +
        'none is configured. A PAC whose circuit is open is skipped; a document already answered by it (stamped, duplicate, data error, or an ' +
        'ambiguous answer inside the ambiguous window) waits for it instead of going to another PAC. Test: the sandbox, one PAC in this process whose ' +
        'circuit is always closed.',
      middleware: [requireRole('ADMIN')] as const,
      responses: {
        200: jsonResponse(PacListSchema, "The environment's PACs"),
        ...errors.unauthenticated,
        403: errorResponse('Not ADMIN'),
      },
    }),
    (c) => {
      const { environment } = actorOf(c);
      const data = environment === 'test' ? [SANDBOX] : (deps.pacRouter?.states().map(pacStateOut) ?? []);
      return c.json({ environment, data }, 200);
    },
  );
}
