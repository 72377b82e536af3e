import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client.ts';
import type { Tx } from '../db/index.ts';
import { withTransaction } from '../db/index.ts';
import { prepared } from '../db/prepared.ts';
import { auditLog, type Environment } from '../db/schema/index.ts';
import type { BackendEnv } from './backend.ts';
import { newId } from './ids.ts';
import type { Logger } from './logger.ts';

/** Whom a write without a credential acted for (sign-up, login, token refresh, logout); its handler says so. */
export interface AuditSubject {
  tenantId: string;
  actorType: 'user' | 'api_key';
  actorId: string;
  environment?: Environment;
}

/** POSTs that change nothing. */
const READ_ONLY_OPERATIONS = new Set(['validateCfdi', 'validateRetencion']);

/** Prepared: every successful write adds a row. */
const insertOf = (db: DbOrTx) =>
  prepared(db, 'auditLog.insert', (d) => {
    const p = sql.placeholder;
    return d
      .insert(auditLog)
      .values({
        id: p('id'),
        tenantId: p('tenantId'),
        environment: p('environment'),
        actorType: p('actorType'),
        actorId: p('actorId'),
        action: p('action'),
        method: p('method'),
        path: p('path'),
        status: p('status'),
        resourceType: p('resourceType'),
        resourceId: p('resourceId'),
        requestId: p('requestId'),
        createdAt: p('createdAt'),
      })
      .prepare();
  });

type AuditRow = typeof auditLog.$inferInsert;

/**
 * Group commit: the rows of the requests that finish while one batch commits go in the next batch, one transaction
 * (one sync of the WAL) for all of them; each request still answers only once its own row is committed.
 */
function batchedInsert(db: Db): (row: AuditRow) => Promise<void> {
  let waiting: { row: AuditRow; done: PromiseWithResolvers<void> }[] = [];
  let flushing = false;
  const flush = async () => {
    flushing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        // read committed: inserts only
        await withTransaction(db, { isolation: 'read committed', name: 'audit.batch' }, async (tx) => {
          for (const { row } of batch) await insertOf(tx).execute(row);
        });
        for (const { done } of batch) done.resolve();
      } catch (err) {
        for (const { done } of batch) done.reject(err);
      }
    }
    flushing = false;
  };
  return (row) => {
    const done = Promise.withResolvers<void>();
    waiting.push({ row, done });
    if (!flushing) void flush();
    return done.promise;
  };
}

/**
 * Writes the request's audit row inside a transaction of its handler, with the status it will answer: the write and
 * its record commit together, in one commit instead of two (an invoice, of POST /cfdis or of a receipt, when its
 * transaction knows that it answers 201). The middleware then writes none after the handler.
 */
export type AuditInTransaction = (tx: Tx, resourceId: string, status: number) => Promise<void>;

/** One entry written outside a backend's middleware: the self-invoicing portal's, whose caller has no credential. */
export async function recordAuditEntry(db: DbOrTx, row: Omit<AuditRow, 'id'>): Promise<void> {
  await insertOf(db).execute({ id: newId('aud'), ...row });
}

/**
 * Records every successful write of a backend in `audit_log`: the caller, the operation (its OpenAPI
 * operationId), the resource (path segment after /api/v1 and its id, or the id a create answered with), the
 * status and the request id. It runs inside the idempotency middleware, so a replayed answer is not a second
 * write. The row is written after the write's own transaction, unless the handler wrote it in that transaction
 * (`auditIn`): otherwise, if the process died between the two, the write would stand without its record.
 */
export function auditWrites(app: OpenAPIHono<BackendEnv>, deps: { db: Db; now: () => Date; logger: Logger }): MiddlewareHandler<BackendEnv> {
  let operations: Map<string, string> | undefined;
  const operationOf = (method: string, path: string) => {
    operations ??= new Map(
      app.openAPIRegistry.definitions.flatMap((d) =>
        d.type === 'route' && d.route.operationId
          ? [[`${d.route.method.toUpperCase()} ${d.route.path.replace(/\{(\w+)\}/g, ':$1')}`, d.route.operationId] as const]
          : [],
      ),
    );
    return operations.get(`${method} ${path}`);
  };

  const insert = batchedInsert(deps.db);
  return async (c, next) => {
    const method = c.req.method;
    const action = operationOf(method, routePath(c, -1));
    if (!action || READ_ONLY_OPERATIONS.has(action)) return next();
    const [, , , group = '', segment] = c.req.path.split('/');
    const entry = (who: AuditSubject, resourceId: string | null, status: number): AuditRow => ({
      id: newId('aud'),
      tenantId: who.tenantId,
      environment: who.environment ?? 'test',
      actorType: who.actorType,
      actorId: who.actorId,
      action: c.get('auditAction') ?? action,
      method,
      path: c.req.path,
      status,
      // /auth/* acts on the user's own session; /tenants/me is the tenant; a create names its id in the answer.
      resourceType: group === 'auth' ? 'users' : group,
      resourceId,
      requestId: c.get('requestId') || 'none',
      createdAt: deps.now().toISOString(),
    });
    const actor = c.get('actor');
    let recordedStatus: number | undefined;
    if (actor) {
      const who: AuditSubject = { tenantId: actor.tenantId, actorType: actor.type, actorId: actor.id, environment: actor.environment };
      c.set('auditIn', async (tx, resourceId, status) => {
        await insertOf(tx).execute(entry(who, resourceId, status));
        recordedStatus = status;
      });
    }
    await next();
    if (c.res.status < 200 || c.res.status >= 300 || recordedStatus === c.res.status) return;
    const who: AuditSubject | undefined = actor
      ? { tenantId: actor.tenantId, actorType: actor.type, actorId: actor.id, environment: actor.environment }
      : c.get('auditSubject');
    if (!who) return;
    try {
      let resourceId = group === 'auth' ? who.actorId : segment === 'me' ? who.tenantId : (segment ?? null);
      if (resourceId === null && method === 'POST' && c.res.headers.get('content-type')?.startsWith('application/json')) {
        const created = (await c.res.clone().json()) as { id?: unknown };
        if (typeof created.id === 'string') resourceId = created.id;
      }
      await insert(entry(who, resourceId, c.res.status));
    } catch (err) {
      // The write itself succeeded and is answered as such: a retry would repeat it. Operators see the gap here.
      deps.logger.error('audit record failed', { err: err instanceof Error ? err.message : String(err), request_id: c.get('requestId'), action });
    }
  };
}
