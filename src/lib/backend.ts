import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { getPath } from 'hono/utils/url';
import type { Db } from '../db/client.ts';
import type { Environment, Role } from '../db/schema/index.ts';
import { auditWrites, type AuditInTransaction, type AuditSubject } from './audit.ts';
import { errorWithCauses, handleError, type BackendKind, type ErrorContext, type ErrorSummary, respondError, zodDetails } from './errors.ts';
import { forbidden, invalidInput, unauthenticated } from './service-error.ts';
import { idempotency, type IdempotencyClaim } from './idempotency.ts';
import type { Logger } from './logger.ts';
import { logStorageFailure } from './storage-log.ts';

/** Who is calling, as derived by the gateway. API keys act with role ADMIN on their tenant's data. */
export interface Actor {
  type: 'user' | 'api_key';
  id: string;
  role: Role;
  tenantId: string;
  environment: Environment;
}

/** What the gateway hands an in-process backend through the fetch bindings. */
export interface GatewayContext {
  actor: Actor | undefined;
  requestId: string;
  /** The caller as its per-address budgets count it (login throttling, sign-ups): an IPv4 address, or an IPv6 /64. */
  clientAddress: string;
  /** The request's path as the gateway routed it: the backend does not parse the URL a second time. */
  path?: string;
  /** Filled by the backend when it answers with an error, for the gateway's request log line. */
  error?: ErrorSummary;
}

/** The methods that can change something: only they pass the Idempotency-Key, audit and identity-change steps. */
export const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

export type BackendEnv = {
  Bindings: { gateway?: GatewayContext };
  Variables: {
    requestId: string;
    actor: Actor | undefined;
    auditSubject?: AuditSubject;
    /** Set for a caller with credentials: the audit row written in the handler's own transaction (see AuditInTransaction). */
    auditIn?: AuditInTransaction;
    /** The audit row's action when one operation does two things the log tells apart (PUT /fiel: putFiel or replaceFiel). */
    auditAction?: string;
    idempotency?: IdempotencyClaim;
    error?: ErrorSummary;
  };
};

export interface BackendDeps {
  db: Db;
  now: () => Date;
  logger: Logger;
  /** Seals the answers kept for Idempotency-Key replays. */
  masterKey: Buffer;
  /** This instance (process) as the owner of the Idempotency-Key claims it runs. */
  instanceId: string;
  /** How long a request waits for another one with its Idempotency-Key (default IDEMPOTENCY_WAIT_MS). */
  idempotencyWaitMs?: number;
  /** Tests only: holds a request with an Idempotency-Key between its route's commit and its answer (see idempotency()). */
  holdBeforeAnswer?: (path: string) => Promise<void>;
}

/**
 * A backend sub-app: takes the caller's context only from the gateway's in-process bindings, answers service errors
 * with the statuses of its kind (`statusOf`: invalid input is 422 on auth routes, 400 on invoice routes, per the
 * spec), and answers a known path with an unserved method by 405 + Allow.
 */
export function createBackend(deps: BackendDeps, backend: Exclude<BackendKind, 'gateway'>) {
  const app = new OpenAPIHono<BackendEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const where = result.target === 'json' || result.target === 'form' ? undefined : result.target;
        throw invalidInput('Invalid input', zodDetails(result.error, where === 'param' ? undefined : where));
      }
    },
    getPath: (request, options) => (options?.env as BackendEnv['Bindings'] | undefined)?.gateway?.path ?? getPath(request),
  });

  // The gateway's context, then the method guard, in one step: every middleware is a promise per request. The steps
  // for writes are mounted on the write methods, so that a read passes none of them.
  const guard = routeGuard(() => app.routes);
  app.use('*', async (c, next) => {
    const inProcess = c.env?.gateway;
    c.set('requestId', inProcess?.requestId ?? '');
    c.set('actor', inProcess?.actor);
    const refused = guard(c);
    if (!refused) await next();
    if (inProcess) inProcess.error = c.get('error');
    return refused;
  });
  app.on('POST', '*', idempotency({ ...deps, waitMs: deps.idempotencyWaitMs }));
  app.on(WRITE_METHODS, '*', auditWrites(app, deps));

  let bodies: Map<string, string> | undefined;
  const errors: ErrorContext = {
    backend,
    accepts: (c) => (bodies ??= routeBodies(app)).get(`${c.req.method} ${c.req.routePath}`),
    log: (e, c) =>
      logStorageFailure(deps.logger, e, { request_id: c.get('requestId') }) ||
      deps.logger.error('unhandled error', { err: errorWithCauses(e), request_id: c.get('requestId') }),
  };
  app.onError((err, c) => handleError(err, c, errors));

  app.notFound((c) => respondError(c, 404, 'Route not found', [{ field: 'path', issue: `no route ${c.req.path}` }]));

  return app;
}

/** `POST /api/v1/csds` → `multipart/form-data with fields cer, key, password`, from the routes' declared bodies. */
function routeBodies(app: OpenAPIHono<BackendEnv>): Map<string, string> {
  const out = new Map<string, string>();
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== 'route' || !def.route.request?.body) continue;
    const accepts = Object.entries(def.route.request.body.content).map(([type, media]) => {
      const schema = media && 'schema' in media ? (media.schema as { shape?: object }) : undefined;
      const fields = type === 'multipart/form-data' ? Object.keys(schema?.shape ?? {}) : [];
      return fields.length ? `${type} with field${fields.length > 1 ? 's' : ''} ${fields.join(', ')}` : type;
    });
    out.set(`${def.route.method.toUpperCase()} ${def.route.path.replace(/\{(\w+)\}/g, ':$1')}`, accepts.join(' or '));
  }
  return out;
}

interface RouteShape {
  /** One entry per path segment: the literal, or null for a parameter. */
  segments: (string | null)[];
  methods: string[];
}

/** The shapes of an app's routes, by segment count; `/users/:id` and `/users/:uid` are one shape. */
function routeShapes(routes: readonly { method: string; path: string }[]): Map<number, RouteShape[]> {
  const byKey = new Map<string, RouteShape>();
  for (const r of routes) {
    if (r.method === 'ALL' || r.path.includes('*')) continue;
    const segments = r.path
      .split('/')
      .slice(1)
      .map((s) => (s.startsWith(':') ? null : s));
    const key = segments.map((s) => s ?? ':').join('/');
    const shape = byKey.get(key) ?? byKey.set(key, { segments, methods: [] }).get(key)!;
    if (!shape.methods.includes(r.method)) shape.methods.push(r.method);
  }
  const bySize = new Map<number, RouteShape[]>();
  for (const shape of byKey.values()) {
    if (shape.methods.includes('GET')) shape.methods.push('HEAD');
    shape.methods.push('OPTIONS');
    bySize.set(shape.segments.length, [...(bySize.get(shape.segments.length) ?? []), shape]);
  }
  return bySize;
}

/** The shape a path belongs to: of those it matches, the one whose first literal comes earliest (`/cfdis/validate` beats `/cfdis/{id}`). */
function shapeOf(shapes: Map<number, RouteShape[]>, path: string): RouteShape | undefined {
  const parts = path.split('/').slice(1);
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  let best: RouteShape | undefined;
  for (const shape of shapes.get(parts.length) ?? []) {
    if (!shape.segments.every((s, i) => s === null || s === parts[i])) continue;
    if (!best || moreLiteral(shape, best)) best = shape;
  }
  return best;
}

const moreLiteral = (a: RouteShape, b: RouteShape) => {
  for (let i = 0; i < a.segments.length; i++) {
    if ((a.segments[i] === null) !== (b.segments[i] === null)) return a.segments[i] !== null;
  }
  return false;
};

/**
 * A known path with an unserved method is 405 with Allow, and OPTIONS is 204 with Allow, for every route of `routes`
 * (read once, at the first request): the answer, or undefined to go on. It runs before routing, so a literal path
 * segment is never taken for a parameter of another method's route (GET /cfdis/validate is not GET /cfdis/{id}).
 */
export function routeGuard(routes: () => readonly { method: string; path: string }[]): (c: Context) => Response | undefined {
  let shapes: Map<number, RouteShape[]> | undefined;
  // Every request passes two guards (the gateway's, its backend's) and most paths come again. Bounded in count and
  // size (callers choose paths): at most 10,000 of up to 200 characters, cleared when full.
  const known = new Map<string, RouteShape | null>();
  return (c) => {
    const path = c.req.path;
    let shape = known.get(path);
    if (shape === undefined) {
      shape = shapeOf((shapes ??= routeShapes(routes())), path) ?? null;
      if (path.length <= 200) {
        if (known.size >= 10_000) known.clear();
        known.set(path, shape);
      }
    }
    if (!shape) return undefined;
    const method = c.req.method;
    if (shape.methods.includes(method) && method !== 'OPTIONS') return undefined;
    const allow = shape.methods.join(', ');
    c.header('Allow', allow);
    if (method === 'OPTIONS') return c.body(null, 204);
    return respondError(c, 405, `Method ${method} not allowed`, [{ field: 'method', issue: `allowed: ${allow}` }]);
  };
}

/** The caller's network address as the gateway saw it; read only where used (login, sign-up): finding it has a cost. */
export const callerAddress = (c: Context<BackendEnv>): string => c.env?.gateway?.clientAddress ?? 'unknown';

/** The caller, or 401: backends behind the gateway only see authenticated requests on these routes. */
export function actorOf(c: Context<BackendEnv>): Actor {
  const actor = c.get('actor');
  if (!actor) throw unauthenticated();
  return actor;
}

export const requireRole =
  (...roles: Role[]): MiddlewareHandler<BackendEnv> =>
  async (c, next) => {
    const actor = actorOf(c);
    if (!roles.includes(actor.role)) throw forbidden(`Role ${roles.join(' or ')} required`);
    await next();
  };

/** Identity management needs a person's session: a leaked API key must not mint keys or users. */
export const requireUserSession: MiddlewareHandler<BackendEnv> = async (c, next) => {
  if (actorOf(c).type !== 'user') throw forbidden('This operation needs a user session (JWT), not an API key');
  await next();
};
