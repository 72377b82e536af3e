import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getConnInfo } from 'hono/bun';
import { routeGuard, type Actor, type GatewayContext } from '../lib/backend.ts';
import { errorWithCauses, handleError, respondError, type ErrorSummary } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import type { Logger } from '../lib/logger.ts';
import { logStorageFailure } from '../lib/storage-log.ts';
import { LARGER_BODIES } from '../lib/schemas.ts';
import type { Principal } from './authenticate.ts';
import { clientAddressOf, type TrustedProxies } from './client-address.ts';
import type { RateDecision, RateLimits } from './rate-limit.ts';

export type GatewayEnv = {
  Variables: { requestId: string; actor: Actor | undefined; rate: RateDecision | undefined; error?: ErrorSummary; forwarded?: GatewayContext };
};

interface Backend {
  fetch(request: Request, bindings: { gateway: GatewayContext }): Response | Promise<Response>;
  /** The routes the backend declares: the gateway sends it their groups and lets their `security: []` ones through. */
  openAPIRegistry: { definitions: readonly { type: string; route?: { path: string; security?: readonly unknown[] } }[] };
}

export interface GatewayDeps {
  logger: Logger;
  /** The caller's principal: at once when known (cached), else a promise; a refusal is thrown or rejected. */
  authenticate(authorization: string | undefined, environment: string | undefined): Principal | Promise<Principal>;
  auth: Backend;
  invoices: Backend;
  /** Per-minute limit for calls without a credential, per client address. */
  anonymousLimit: number;
  /** Per-minute limit for the self-invoicing portal (/portal), per client address, apart from anonymousLimit. */
  portalLimit: number;
  /** Per-minute limit for /health and /health/live, per client address, apart from anonymousLimit. */
  probeLimit: number;
  maxBodyBytes: number;
  /** Peers allowed to name the client in X-Forwarded-For (TRUSTED_PROXIES); none by default. */
  trustedProxies: TrustedProxies;
  rateLimits: RateLimits;
}

/** The spec's header naming the tenant, which the gateway derives and never takes from the caller. */
const TENANT_HEADER = 'x-tenant-id';

/** A tenant's credentials together get this many times the plan's per-minute limit (each one alone: the plan's). */
const TENANT_BUDGET = 2;

/**
 * Which backend serves each first path segment after /api/v1, and the paths that need no credential (declared with
 * `security: []`, any method), from the routes the backends register.
 */
function routeTable(backends: Backend[]) {
  const groups = new Map<string, Backend>();
  const publicPaths: RegExp[] = [];
  for (const backend of backends) {
    for (const def of backend.openAPIRegistry.definitions) {
      if (def.type !== 'route' || !def.route) continue;
      const group = def.route.path.split('/')[3];
      if (group) groups.set(group, backend);
      if (def.route.security?.length === 0) {
        const pattern = def.route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+');
        publicPaths.push(new RegExp(`^${pattern}/?$`));
      }
    }
  }
  return { groups, isPublic: (path: string) => publicPaths.some((p) => p.test(path)) };
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A NUL (%00) in the path or a query value: 400 naming where. No text the API keeps or looks up may hold one, and
 * PostgreSQL refuses it in any text parameter, so it is refused before a route reads it, on every route alike.
 */
function refuseNul(c: Context): Response | undefined {
  const url = c.req.url;
  if (!url.includes('%00') && !url.includes('\u0000')) return undefined;
  const { pathname, searchParams } = new URL(url);
  if (/%00/.test(pathname)) return respondError(c, 400, 'Invalid path', [{ field: 'path', issue: 'must not contain the NUL character (%00)' }]);
  for (const [name, value] of searchParams)
    if (name.includes('\u0000') || value.includes('\u0000'))
      return respondError(c, 400, 'Invalid query', [{ field: name.replaceAll('\u0000', ''), issue: 'must not contain the NUL character (%00)' }]);
  return undefined;
}

/** Unique per process run and cheap (no randomness per request): boot id + counter. */
const BOOT_ID = newId('req').slice(4);
let requestCounter = 0;
const nextRequestId = () => `req_${BOOT_ID}${(++requestCounter).toString(36).padStart(6, '0')}`;

/**
 * The gateway chain: request id → log → body-size limit → credential → tenant/role (from the credential) →
 * rate limit → strip caller-sent context headers, inject the derived ones → backend.
 */
export function createGateway(deps: GatewayDeps) {
  const app = new OpenAPIHono<GatewayEnv>();
  const clientAddress = (c: Context) => clientAddressOf(peerAddress(c), c.req.header('x-forwarded-for'), deps.trustedProxies);
  // Late counters refuse nothing (decided on this instance). By address (anonymous calls, probes): counted alone while
  // the database is down too, so /health still answers it. By credential: a database that refuses fails it (503).
  const addressLimiter = deps.rateLimits('gateway', 60_000, { countAloneWhenUnreachable: true });
  const credentialLimiter = deps.rateLimits('gateway', 60_000);

  // The gateway's own routes (health, this document, /docs) are guarded here, in the same step (each middleware is a
  // promise per request); each backend guards its own.
  const guard = routeGuard(() => app.routes);
  app.use('*', async (c, next) => {
    const started = performance.now();
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : nextRequestId();
    c.set('requestId', requestId);
    const refused = guard(c) ?? refuseNul(c);
    if (refused) c.res = refused;
    else await next();
    let res = c.res;
    try {
      res.headers.set('X-Request-Id', requestId);
    } catch {
      // A proxied response can have immutable headers: copy it once.
      c.res = res = new Response(res.body, res);
      res.headers.set('X-Request-Id', requestId);
    }
    const rate = c.get('rate');
    if (rate) setRateHeaders(res, rate);
    // An error answer says which error and on what: from the gateway's own respondError or the in-process backend's.
    const status = res.status;
    const error = status >= 400 ? (c.get('error') ?? c.get('forwarded')?.error) : undefined;
    const actor = c.get('actor');
    deps.logger.info('request', {
      request_id: requestId,
      method: c.req.method,
      path: c.req.path,
      status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      tenant_id: actor?.tenantId,
      actor_id: actor?.id,
      ...(error && { error_code: error.code, error_field: error.field, error_rule: error.rule }),
    });
  });

  app.onError((err, c) =>
    handleError(err, c, {
      backend: 'gateway',
      log: (e) =>
        logStorageFailure(deps.logger, e, { request_id: c.get('requestId') }) ||
        deps.logger.error('unhandled error', { err: errorWithCauses(e), request_id: c.get('requestId') }),
    }),
  );
  // A path that names a part of the API without its prefix (GET /cfdis, POST /auth/login) is a first call copied
  // without the base URL: say where the API lives (docs/decisions.md, "The 404 of a path without /api/v1").
  app.notFound((c) => {
    const path = c.req.path;
    const segment = path.split('/')[1] ?? '';
    if (!path.startsWith('/api/') && apiSegments().has(segment))
      return respondError(c, 404, `Not found: the API lives under /api/v1 (did you mean ${c.req.method} /api/v1${path}?)`, [
        { field: 'path', issue: `no route ${path}: every API path starts with /api/v1` },
      ]);
    return respondError(c, 404, 'Route not found', [{ field: 'path', issue: `no route ${path}` }]);
  });

  const limitOf = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: (c) => respondError(c, 413, 'Request body too large', [{ field: 'body', issue: `must be at most ${maxSize} bytes` }]),
    });
  const limitBody = limitOf(deps.maxBodyBytes);
  // A route named in LARGER_BODIES takes its own limit, never less than the others'.
  const largerLimits = new Map([...LARGER_BODIES].map(([path, bytes]) => [path, limitOf(Math.max(bytes, deps.maxBodyBytes))]));

  const refuse = (c: Context<GatewayEnv>, decision: RateDecision, issue: string) =>
    respondError(c, 429, 'Rate limit exceeded', [{ field: 'rate_limit', issue: `${issue}; retry in ${decision.retryAfter} seconds` }], {
      'Retry-After': String(decision.retryAfter),
    });

  const rateLimit = async (c: Context<GatewayEnv>, key: string, limit: number): Promise<Response | undefined> => {
    const [decision] = await addressLimiter.hit([{ key, limit }]);
    c.set('rate', decision);
    return decision!.allowed ? undefined : refuse(c, decision!, `limit of ${limit} requests per minute reached`);
  };

  /**
   * Each credential has the plan's limit; all of a tenant's keys and sessions together have TENANT_BUDGET times it,
   * so more keys do not buy more than that: both counted in one step, the tenant's only when the credential's allows.
   * The headers show the credential's window unless the tenant's refuses.
   */
  const credentialRateLimit = async (c: Context<GatewayEnv>, actor: Actor, planLimit: number): Promise<Response | undefined> => {
    const tenantLimit = planLimit * TENANT_BUDGET;
    const [credential, tenant] = await credentialLimiter.hit([
      { key: `${actor.type}:${actor.id}`, limit: planLimit },
      { key: `tenant:${actor.tenantId}`, limit: tenantLimit },
    ]);
    if (!credential!.allowed) {
      c.set('rate', credential);
      return refuse(c, credential!, `limit of ${planLimit} requests per minute reached`);
    }
    if (!tenant!.allowed) {
      c.set('rate', tenant);
      return refuse(c, tenant!, `the tenant's limit of ${tenantLimit} requests per minute, all its API keys and sessions together, reached`);
    }
    c.set('rate', credential);
    return undefined;
  };

  /** Rate-limit unauthenticated traffic (and failed credentials) by client address. */
  const anonymous: MiddlewareHandler<GatewayEnv> = async (c, next) => {
    const limited = await rateLimit(c, `ip:${clientAddress(c)}`, deps.anonymousLimit);
    if (limited) return limited;
    await next();
  };

  /**
   * The derived context travels in the fetch bindings, which no caller can forge. The caller's x-tenant-id is still
   * replaced, as the spec says, for anything that reads the header.
   */
  const forward = (c: Context<GatewayEnv>, backend: Backend, actor: Actor | undefined) => {
    const headers = writableHeaders(c);
    if (actor) headers.set(TENANT_HEADER, actor.tenantId);
    // The address on demand: only login and sign-up read it, and asking Bun for the peer costs as much as a route.
    let address: string | undefined;
    const context: GatewayContext = {
      actor,
      requestId: c.get('requestId'),
      path: c.req.path,
      get clientAddress() {
        return (address ??= clientAddress(c));
      },
    };
    c.set('forwarded', context);
    return backend.fetch(c.req.raw, { gateway: context });
  };

  // Read at the first request, when both backends have mounted their routes.
  let routes: ReturnType<typeof routeTable> | undefined;
  /** The first segments after /api/v1: the backends' groups and the gateway's own (health, openapi.json, sandbox). */
  let segments: Set<string> | undefined;
  const apiSegments = () =>
    (segments ??= new Set([
      ...(routes ??= routeTable([deps.auth, deps.invoices])).groups.keys(),
      ...app.routes.filter((r) => r.path.startsWith('/api/v1/') && r.path !== '/api/v1/*').map((r) => r.path.split('/')[3]!),
    ]));
  const route = async (c: Context<GatewayEnv>): Promise<Response> => {
    routes ??= routeTable([deps.auth, deps.invoices]);
    const target = routes.groups.get(c.req.path.split('/')[3] ?? '');
    if (!target) return respondError(c, 404, 'Route not found', [{ field: 'path', issue: `no route ${c.req.path}` }]);

    let actor: Actor | undefined;
    if (!routes.isPublic(c.req.path)) {
      let principal: Principal;
      try {
        const resolving = deps.authenticate(c.req.header('authorization'), c.req.header('x-environment'));
        principal = resolving instanceof Promise ? await resolving : resolving;
      } catch (err) {
        // A failed credential still counts against the caller's address: guessing keys is rate-limited.
        const limited = await rateLimit(c, `ip:${clientAddress(c)}`, deps.anonymousLimit);
        if (limited) return limited;
        throw err;
      }
      actor = principal.actor;
      c.set('actor', actor);
      const limited = await credentialRateLimit(c, actor, principal.limit);
      if (limited) return limited;
    } else {
      const limited = await rateLimit(c, `ip:${clientAddress(c)}`, deps.anonymousLimit);
      if (limited) return limited;
    }

    // Awaited, not returned: an async function answering with a promise takes two more turns of the queue to settle.
    return await forward(c, target, actor);
  };

  /** The body-size limit, then the route; a request without a body (most reads) skips the limit's step. */
  const routeWithLimit = async (c: Context<GatewayEnv>): Promise<Response> =>
    (await ((c.req.method === 'POST' && largerLimits.get(c.req.path)) || limitBody)(c, async () => {
      c.res = await route(c);
    })) ?? c.res;
  const routeToBackend = (c: Context<GatewayEnv>): Promise<Response> => (c.req.raw.body ? routeWithLimit(c) : route(c));

  /**
   * Health probes have their own, larger budget per address: a load balancer or orchestrator polling every second
   * (often readiness and liveness both) must not be refused because sign-ups or logins came from the same address.
   */
  const probes: MiddlewareHandler<GatewayEnv> = async (c, next) => {
    const limited = await rateLimit(c, `probe:${clientAddress(c)}`, deps.probeLimit);
    if (limited) return limited;
    await next();
  };

  /** The self-invoicing portal's own budget per address: public pages that stamp, kept apart from sign-ups and logins. */
  const portal: MiddlewareHandler<GatewayEnv> = async (c, next) => {
    const limited = await rateLimit(c, `portal:${clientAddress(c)}`, deps.portalLimit);
    if (limited) return limited;
    await next();
  };

  return { app, anonymous, probes, portal, routeToBackend };
}

/** The request's headers without the caller's x-tenant-id: Bun.serve's are mutable; others (tests' Request objects may not be) get a copy. */
function writableHeaders(c: Context): Headers {
  try {
    c.req.raw.headers.delete(TENANT_HEADER);
    return c.req.raw.headers;
  } catch {
    const headers = new Headers(c.req.raw.headers);
    headers.delete(TENANT_HEADER);
    c.req.raw = new Request(c.req.raw, { headers });
    return headers;
  }
}

function setRateHeaders(res: Response, d: RateDecision) {
  res.headers.set('X-RateLimit-Limit', String(d.limit));
  res.headers.set('X-RateLimit-Remaining', String(d.remaining));
  res.headers.set('X-RateLimit-Reset', String(d.reset));
}

function peerAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
