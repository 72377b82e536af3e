import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { CATALOG_VERSION } from '../catalogs/index.ts';
import type { Db } from '../db/client.ts';
import { checkDatabase } from '../db/health.ts';
import type { Heartbeat } from '../jobs/scheduler.ts';
import { queueStats } from '../jobs/queue.ts';
import { errorResponse, jsonResponse } from '../lib/schemas.ts';
import type { PacRouter } from '../pac/failover.ts';
import type { GatewayEnv } from './gateway.ts';

const Indicator = z.record(z.string(), z.object({ status: z.string(), message: z.string().optional() }).catchall(z.unknown()));
const HealthSchema = z
  .object({
    status: z.enum(['ok', 'error']),
    info: Indicator.nullable(),
    error: Indicator.nullable(),
    details: Indicator,
  })
  .openapi('Health');

type Indicators = Record<string, { status: string; [k: string]: unknown }>;
type Indicator = Indicators[string];

/** The database check writes (SQLite), so it runs at most once a second; in between, /health repeats its last answer. */
const DATABASE_CHECK_MS = 1000;

/** Reported, never failing /health: with every PAC down the instance still serves test mode, reads and queued issuing. */
function pacsCheck(router: HealthDeps['pacRouter']): Indicator {
  const live = (router?.states() ?? []).map(({ name, circuit }) => ({ name, circuit }));
  if (!router || router.healthy()) return { status: 'up', live };
  return { status: 'down', message: "every live PAC's circuit is open: live invoices wait in the queue", live };
}

export interface HealthDeps {
  db: Db;
  heartbeat: Heartbeat;
  now: () => Date;
  version: string;
  livePac: boolean;
  /** The live PACs' circuits (none: no live PAC is configured for failover). */
  pacRouter?: Pick<PacRouter, 'states' | 'healthy'>;
  /** The SMTP server's last check, at once (never waited for: a check may take seconds). */
  smtp: () => { status: string; [k: string]: unknown };
}

export function mountHealth(app: OpenAPIHono<GatewayEnv>, deps: HealthDeps) {
  // The check in flight, not only its result: probes that arrive meanwhile share it instead of writing again.
  let database: { at: number; result: Promise<Indicator> } | undefined;
  const service = { status: 'up', version: deps.version };
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/health/live',
      operationId: 'getLiveness',
      tags: ['System'],
      summary: 'Liveness: the process answers',
      description:
        'For a supervisor deciding whether to restart the process (a Kubernetes livenessProbe): 200 whenever the process answers HTTP. ' +
        'It checks no dependency, so a full disk or a busy queue never gets a working process restarted; `/health` (readiness) does.',
      security: [],
      responses: {
        200: jsonResponse(HealthSchema, 'The process answers'),
        429: errorResponse('More than 600 probes a minute from this address (shared with /health)'),
      },
    }),
    (c) => c.json({ status: 'ok' as const, info: { service }, error: null, details: { service } }, 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/health',
      operationId: 'getHealth',
      tags: ['System'],
      summary: 'Readiness: database writable, scheduler ticking, queue moving',
      description:
        'For load balancers and container health checks. 503 when a dependency is down; `error` names it: `database` (on SQLite a write failed or less than 64 MiB of storage is left; ' +
        'on PostgreSQL the server did not answer a `select 1` within 2 s), ' +
        '`scheduler` (no tick for three intervals; a tick that finds the job worker still busy counts), `queue` (the oldest due job waits over 10 minutes). ' +
        "The database entry names its `engine` (`sqlite` or `postgres`) and, when up, the check's `latency_ms`. The database check runs at most once a second. " +
        '`details.smtp` reports email and never makes /health fail (invoices are issued without it): `not_configured` (no SMTP_URL), `checking` ' +
        '(the first check has not answered), `ok` (the server greeted and took the login at `checked_at`) or `unreachable` (`message` says why; ' +
        'emails wait in the queue), with its `server` (host:port); the last result is shown at once and checked again behind it when over a minute old. ' +
        "`details.pacs` reports the live PACs' circuits (`live`: each one's `name` and `circuit`, in failover order) and never makes /health fail: `up` " +
        'while at least one circuit is closed or none is configured, `down` when every one is open or half-open (live invoices wait in the queue for a ' +
        'PAC; test mode, reads and queued issuing still work, so the instance stays in rotation). ' +
        '`/health/live` is the liveness check. Probes have their own budget of 600 requests a minute per ' +
        'client address (429 past it), apart from the 100 of the other calls without a credential, so sign-ups from the same address never make an instance look down.',
      security: [],
      responses: {
        200: jsonResponse(HealthSchema, 'Ready'),
        429: errorResponse('More than 600 probes a minute from this address'),
        503: jsonResponse(HealthSchema, 'A dependency failed'),
      },
    }),
    async (c) => {
      const info: Indicators = {};
      const error: Indicators = {};
      const at = deps.now().getTime();
      if (!database || at - database.at >= DATABASE_CHECK_MS || at < database.at) database = { at, result: checkDatabase(deps.db, deps.now()) };
      const checked = await database.result;
      (checked.status === 'up' ? info : error).database = checked;
      const last = deps.heartbeat.lastTickAt();
      const age = last === null ? null : deps.now().getTime() - last;
      const scheduler = { last_tick_at: last === null ? null : new Date(last).toISOString(), interval_ms: deps.heartbeat.intervalMs };
      // Three missed ticks mean the scheduler is stuck or stopped.
      if (age !== null && age <= deps.heartbeat.intervalMs * 3) info.scheduler = { status: 'up', ...scheduler };
      else
        error.scheduler = {
          status: 'down',
          message: last === null ? 'scheduler has not ticked yet' : `last tick ${Math.round(age! / 1000)} s ago`,
          ...scheduler,
        };
      if (info.database) {
        // A queue whose oldest due job waits more than 10 minutes is stuck, whatever the scheduler says.
        const queue = await queueStats(deps.db, deps.now());
        if (queue.oldest_due_seconds !== null && queue.oldest_due_seconds > 600)
          error.queue = { status: 'down', message: `oldest due job waits ${queue.oldest_due_seconds} s`, ...queue };
        else info.queue = { status: 'up', ...queue };
      }
      info.pac = { status: 'up', sandbox: 'in process', live: deps.livePac ? 'configured' : 'not configured (live stamping answers 503)' };
      const ok = Object.keys(error).length === 0;
      const body = {
        status: ok ? ('ok' as const) : ('error' as const),
        info,
        error,
        details: { ...info, ...error, service, catalogs: { status: 'up', version: CATALOG_VERSION }, smtp: deps.smtp(), pacs: pacsCheck(deps.pacRouter) },
      };
      return ok ? c.json(body, 200) : c.json(body, 503);
    },
  );
}
