import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Db } from '../../db/client.ts';
import { actorOf, type BackendEnv } from '../../lib/backend.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import { errorResponses, jsonResponse } from '../../lib/schemas.ts';
import { tenantStats } from './service.ts';

const errors = errorResponses('invoices');

const Month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be YYYY-MM');
const Importe = z.object({ tipo: z.string(), moneda: z.string(), total: z.number() });
const Counts = z.record(z.string(), z.number().int());

const StatsSchema = z
  .object({
    environment: z.enum(['test', 'live']),
    cfdis: z.object({
      total: z.number().int(),
      por_status: Counts,
      por_tipo: Counts,
      importes: z.array(Importe).openapi({ description: 'Σ Total of the vigente (and cancelacion_pendiente) CFDIs, per type and currency' }),
      por_mes: z.array(z.object({ mes: z.string(), cantidad: z.number().int(), por_tipo: Counts, importes: z.array(Importe) })).openapi({ description: 'By month of Fecha, oldest first' }),
    }),
    csds: z.object({ total: z.number().int(), activos: z.number().int(), por_vencer_30_dias: z.number().int() }),
    usuarios: z.object({ total: z.number().int(), por_rol: Counts }),
    api_keys: z.object({ activas: z.number().int() }),
  })
  .openapi('Stats');

export function mountStatsRoutes(app: OpenAPIHono<BackendEnv>, deps: { db: Db; now: () => Date; identity: IdentityDirectory }) {
  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/stats', tags: ['Estadísticas'], operationId: 'getStats',
      summary: 'The tenant\'s CFDIs by status, type and month (count and amounts per currency), CSDs, users and API keys',
      description: 'Scoped to the tenant and to the environment of the credential (sk_test_ → sandbox figures). Amounts are exact sums of Total per currency, never converted.',
      request: { query: z.object({ desde: Month.optional().openapi({ description: 'First month (YYYY-MM) of Fecha' }), hasta: Month.optional().openapi({ description: 'Last month (YYYY-MM)' }) }) },
      responses: { 200: jsonResponse(StatsSchema, 'Statistics'), ...errors.invalidQuery, ...errors.unauthenticated },
    }),
    async (c) => c.json(await tenantStats(deps, actorOf(c), c.req.valid('query'), deps.now()), 200),
  );
}
