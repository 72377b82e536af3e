import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Db } from '../../db/client.ts';
import { actorOf, type BackendEnv } from '../../lib/backend.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import { errorResponses, jsonResponse } from '../../lib/schemas.ts';
import { StatsQuery, StatsSchema } from './schemas.ts';
import { tenantStats } from './service.ts';

const errors = errorResponses('invoices');

export function mountStatsRoutes(app: OpenAPIHono<BackendEnv>, deps: { db: Db; now: () => Date; identity: IdentityDirectory }) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/stats',
      tags: ['Estadísticas'],
      operationId: 'getStats',
      summary: "The tenant's CFDIs by status, type and month (count and amounts per currency), CSDs, users and API keys",
      description:
        'Scoped to the tenant and to the environment of the credential (sk_test_ → sandbox figures). Amounts are exact sums of Total per currency, never converted.',
      request: { query: StatsQuery },
      responses: { 200: jsonResponse(StatsSchema, 'Statistics'), ...errors.invalidQuery, ...errors.unauthenticated },
    }),
    async (c) => c.json(await tenantStats(deps, actorOf(c), c.req.valid('query'), deps.now()), 200),
  );
}
