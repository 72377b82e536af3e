import { and, desc, eq, lt } from 'drizzle-orm';
import type { z } from '@hono/zod-openapi';
import { auditLog } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import type { AuthDeps } from '../deps.ts';
import { toAuditEntry, type AuditQuery } from './schemas.ts';

/** The tenant's audit log, newest first (ids sort by time). */
export async function listAuditLog(deps: Pick<AuthDeps, 'db'>, actor: Actor, q: z.infer<typeof AuditQuery>) {
  const before = decodeCursor(q.cursor);
  const rows = await deps.db
    .select()
    .from(auditLog)
    .where(
      and(
        eq(auditLog.tenantId, actor.tenantId),
        before ? lt(auditLog.id, before) : undefined,
        q.actor_id ? eq(auditLog.actorId, q.actor_id) : undefined,
        q.resource_id ? eq(auditLog.resourceId, q.resource_id) : undefined,
        q.action ? eq(auditLog.action, q.action) : undefined,
      ),
    )
    .orderBy(desc(auditLog.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, toAuditEntry);
}
