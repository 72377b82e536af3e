import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { z } from '@hono/zod-openapi';
import { users } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { conflict, forbidden, invalidInput, notFound } from '../../lib/service-error.ts';
import { newId } from '../../lib/ids.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import type { AuthDeps } from '../deps.ts';
import { emailTaken, isUniqueEmailViolation, revokeUserSessions } from '../session/service.ts';
import { toUser, type ChangePasswordSchema, type UserCreateSchema, type UserPatchSchema, type UserRow } from './schemas.ts';
import { withTransaction } from '../../db/index.ts';

/** The tenant's user or 404: another tenant's id is indistinguishable from a missing one. */
async function getUserRow(deps: AuthDeps, actor: Actor, id: string): Promise<UserRow> {
  const row = (
    await deps.db
      .select()
      .from(users)
      .where(and(eq(users.id, id), eq(users.tenantId, actor.tenantId)))
  )[0];
  if (!row) throw notFound('User');
  return row;
}

export const getUser = async (deps: AuthDeps, actor: Actor, id: string) => toUser(await getUserRow(deps, actor, id));

export async function listUsers(deps: AuthDeps, actor: Actor, q: { limit: number; cursor?: string }) {
  const after = decodeCursor(q.cursor);
  const rows = await deps.db
    .select()
    .from(users)
    .where(and(eq(users.tenantId, actor.tenantId), after ? gt(users.id, after) : undefined))
    .orderBy(asc(users.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, toUser);
}

export async function createUser(deps: AuthDeps, actor: Actor, input: z.infer<typeof UserCreateSchema>, bindIdempotency?: IdempotencyClaim['bind']) {
  if (
    (
      await deps.db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.tenantId, actor.tenantId), eq(users.email, input.email)))
    )[0]
  )
    throw emailTaken();
  const passwordHash = await deps.hasher.hash(input.password);
  const now = deps.now().toISOString();
  const id = newId('usr');
  try {
    // read committed: one insert; the unique index on (tenant, email) refuses a second user with the email, the claim's bind is fenced
    await withTransaction(deps.db, { isolation: 'read committed', name: 'users.create' }, async (tx) => {
      await tx
        .insert(users)
        .values({ id, tenantId: actor.tenantId, email: input.email, passwordHash, nombre: input.nombre, role: input.role, createdAt: now, updatedAt: now });
      await bindIdempotency?.(tx, id);
    });
  } catch (err) {
    if (isUniqueEmailViolation(err)) throw emailTaken();
    throw err;
  }
  return getUser(deps, actor, id);
}

export async function updateUser(deps: AuthDeps, actor: Actor, id: string, input: z.infer<typeof UserPatchSchema>) {
  const target = await getUserRow(deps, actor, id);
  const isSelf = actor.type === 'user' && actor.id === target.id;
  if (actor.role !== 'ADMIN' && !(isSelf && input.email === undefined && input.role === undefined)) {
    throw forbidden('Role ADMIN required (others may change only their own nombre)');
  }
  // serializable: the last-ADMIN count and the email check read what decides the update
  return withTransaction(deps.db, { isolation: 'serializable', name: 'users.update' }, async (tx) => {
    if (input.role && input.role !== 'ADMIN' && target.role === 'ADMIN') await assertAnotherAdmin(tx, actor.tenantId, target.id);
    if (input.email && input.email !== target.email) {
      const other = (
        await tx
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.tenantId, actor.tenantId), eq(users.email, input.email)))
      )[0];
      if (other) throw emailTaken();
    }
    await tx
      .update(users)
      .set({
        ...(input.email !== undefined && { email: input.email }),
        ...(input.nombre !== undefined && { nombre: input.nombre }),
        ...(input.role !== undefined && { role: input.role }),
        updatedAt: deps.now().toISOString(),
      })
      .where(and(eq(users.id, target.id), eq(users.tenantId, actor.tenantId)));
    return toUser((await tx.select().from(users).where(eq(users.id, target.id)))[0]!);
  });
}

export async function deleteUser(deps: AuthDeps, actor: Actor, id: string) {
  const target = await getUserRow(deps, actor, id);
  if (actor.type === 'user' && actor.id === target.id) throw conflict('You cannot delete yourself', [{ field: 'id', issue: 'is the calling user' }]);
  // serializable: the last-ADMIN count decides the delete (two admins deleting each other)
  await withTransaction(deps.db, { isolation: 'serializable', name: 'users.delete' }, async (tx) => {
    if (target.role === 'ADMIN') await assertAnotherAdmin(tx, actor.tenantId, target.id);
    await tx.delete(users).where(and(eq(users.id, target.id), eq(users.tenantId, actor.tenantId)));
  });
  return { id: target.id, deleted: true as const };
}

export async function changePassword(deps: AuthDeps, actor: Actor, id: string, input: z.infer<typeof ChangePasswordSchema>) {
  const target = await getUserRow(deps, actor, id);
  const isSelf = actor.type === 'user' && actor.id === target.id;
  if (!isSelf && actor.role !== 'ADMIN') throw forbidden("Role ADMIN required to change another user's password");
  if (isSelf) {
    if (!input.current_password) throw invalidInput('Invalid input', [{ field: 'current_password', issue: 'is required to change your own password' }]);
    if (!(await deps.hasher.verify(input.current_password, target.passwordHash))) {
      throw invalidInput('Invalid input', [{ field: 'current_password', issue: 'is wrong' }]);
    }
  }
  const passwordHash = await deps.hasher.hash(input.new_password);
  // read committed: blind writes (token_version + 1 applies to the row's latest version) and the sessions' revocation
  await withTransaction(deps.db, { isolation: 'read committed', name: 'users.password' }, async (tx) => {
    // Bumping the token version ends every access token issued before, on every device.
    await tx
      .update(users)
      .set({ passwordHash, tokenVersion: sql`${users.tokenVersion} + 1`, updatedAt: deps.now().toISOString() })
      .where(eq(users.id, target.id));
    await revokeUserSessions({ db: tx, now: deps.now }, target.id);
  });
}

async function assertAnotherAdmin(tx: Pick<AuthDeps['db'], 'select'>, tenantId: string, exceptId: string) {
  const admins = (
    await tx
      .select({ n: sql<number>`count(*)` })
      .from(users)
      .where(and(eq(users.tenantId, tenantId), eq(users.role, 'ADMIN'), sql`${users.id} <> ${exceptId}`))
  )[0];
  if (!admins || admins.n === 0) throw conflict('A tenant must keep at least one ADMIN', [{ field: 'role', issue: 'this is the last ADMIN of the tenant' }]);
}
