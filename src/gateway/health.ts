import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { CATALOG_VERSION } from '../catalogs/index.ts';
import type { Db } from '../db/client.ts';
import type { Heartbeat } from '../jobs/scheduler.ts';
import { queueStats } from '../jobs/queue.ts';
import { errorResponse, jsonResponse } from '../lib/schemas.ts';
import type { GatewayEnv } from './gateway.ts';

const Indicator = z.record(z.string(), z.object({ status: z.string(), message: z.string().optional() }).catchall(z.unknown()));
export const HealthSchema = z
  .object({
    status: z.enum(['ok', 'error']),
    info: Indicator.nullable(),
    error: Indicator.nullable(),
    details: Indicator,
  })
  .openapi('Health');

type Indicators = Record<string, { status: string; [k: string]: unknown }>;

export function mountHealth(app: OpenAPIHono<GatewayEnv>, deps: { db: Db; heartbeat: Heartbeat; now: () => Date; version: string; livePac: boolean }) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/health', operationId: 'getHealth',
      tags: ['System'],
      summary: 'Readiness: database and scheduler',
      description: 'For load balancers and container health checks. 503 when a dependency is down; `error` names it.',
      security: [],
      responses: {
        200: jsonResponse(HealthSchema, 'Ready'),
        429: errorResponse('Too many requests from this address'),
        503: jsonResponse(HealthSchema, 'A dependency failed'),
      },
    }),
    (c) => {
      const info: Indicators = {};
      const error: Indicators = {};
      try {
        deps.db.$client.prepare('select 1').get();
        info.database = { status: 'up' };
      } catch (err) {
        error.database = { status: 'down', message: err instanceof Error ? err.message : String(err) };
      }
      const last = deps.heartbeat.lastTickAt();
      const age = last === null ? null : deps.now().getTime() - last;
      const scheduler = { last_tick_at: last === null ? null : new Date(last).toISOString(), interval_ms: deps.heartbeat.intervalMs };
      // Three missed ticks mean the scheduler is stuck or stopped.
      if (age !== null && age <= deps.heartbeat.intervalMs * 3) info.scheduler = { status: 'up', ...scheduler };
      else error.scheduler = { status: 'down', message: last === null ? 'scheduler has not ticked yet' : `last tick ${Math.round(age! / 1000)} s ago`, ...scheduler };
      if (info.database) {
        // A queue whose oldest due job waits more than 10 minutes is stuck, whatever the scheduler says.
        const queue = queueStats(deps.db, deps.now());
        if (queue.oldest_due_seconds !== null && queue.oldest_due_seconds > 600) error.queue = { status: 'down', message: `oldest due job waits ${queue.oldest_due_seconds} s`, ...queue };
        else info.queue = { status: 'up', ...queue };
      }
      info.pac = { status: 'up', sandbox: 'in process', live: deps.livePac ? 'configured' : 'not configured (live stamping answers 503)' };
      const ok = Object.keys(error).length === 0;
      const body = {
        status: ok ? ('ok' as const) : ('error' as const),
        info,
        error,
        details: { ...info, ...error, service: { status: 'up', version: deps.version }, catalogs: { status: 'up', version: CATALOG_VERSION } },
      };
      return ok ? c.json(body, 200) : c.json(body, 503);
    },
  );
}
