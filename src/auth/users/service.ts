import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { z } from '@hono/zod-openapi';
import { users } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { ApiError, conflict, forbidden, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import type { AuthDeps } from '../deps.ts';
import { emailTaken, isUniqueEmailViolation, revokeUserSessions } from '../session/service.ts';
import { toUser, type ChangePasswordSchema, type UserCreateSchema, type UserPatchSchema, type UserRow } from './schemas.ts';

/** The tenant's user or 404: another tenant's id is indistinguishable from a missing one. */
function getUserRow(deps: AuthDeps, actor: Actor, id: string): UserRow {
  const row = deps.db.select().from(users).where(and(eq(users.id, id), eq(users.tenantId, actor.tenantId))).get();
  if (!row) throw notFound('User');
  return row;
}

export const getUser = (deps: AuthDeps, actor: Actor, id: string) => toUser(getUserRow(deps, actor, id));

export function listUsers(deps: AuthDeps, actor: Actor, q: { limit: number; cursor?: string }) {
  const after = decodeCursor(q.cursor, 422);
  const rows = deps.db
    .select()
    .from(users)
    .where(and(eq(users.tenantId, actor.tenantId), after ? gt(users.id, after) : undefined))
    .orderBy(asc(users.id))
    .limit(q.limit + 1)
    .all();
  return page(rows, q.limit, toUser);
}

export async function createUser(deps: AuthDeps, actor: Actor, input: z.infer<typeof UserCreateSchema>) {
  if (deps.db.select({ id: users.id }).from(users).where(and(eq(users.tenantId, actor.tenantId), eq(users.email, input.email))).get()) throw emailTaken();
  const passwordHash = await deps.hasher.hash(input.password);
  const now = deps.now().toISOString();
  const id = newId('usr');
  try {
    deps.db.insert(users).values({ id, tenantId: actor.tenantId, email: input.email, passwordHash, nombre: input.nombre, role: input.role, createdAt: now, updatedAt: now }).run();
  } catch (err) {
    if (isUniqueEmailViolation(err)) throw emailTaken();
    throw err;
  }
  return getUser(deps, actor, id);
}

export function updateUser(deps: AuthDeps, actor: Actor, id: string, input: z.infer<typeof UserPatchSchema>) {
  const target = getUserRow(deps, actor, id);
  const isSelf = actor.type === 'user' && actor.id === target.id;
  if (actor.role !== 'ADMIN' && !(isSelf && input.email === undefined && input.role === undefined)) {
    throw forbidden('Role ADMIN required (others may change only their own nombre)');
  }
  return deps.db.transaction((tx) => {
    if (input.role && input.role !== 'ADMIN' && target.role === 'ADMIN') assertAnotherAdmin(tx, actor.tenantId, target.id);
    if (input.email && input.email !== target.email) {
      const other = tx.select({ id: users.id }).from(users).where(and(eq(users.tenantId, actor.tenantId), eq(users.email, input.email))).get();
      if (other) throw emailTaken();
    }
    tx.update(users)
      .set({
        ...(input.email !== undefined && { email: input.email }),
        ...(input.nombre !== undefined && { nombre: input.nombre }),
        ...(input.role !== undefined && { role: input.role }),
        updatedAt: deps.now().toISOString(),
      })
      .where(and(eq(users.id, target.id), eq(users.tenantId, actor.tenantId)))
      .run();
    return toUser(tx.select().from(users).where(eq(users.id, target.id)).get()!);
  });
}

export function deleteUser(deps: AuthDeps, actor: Actor, id: string) {
  const target = getUserRow(deps, actor, id);
  if (actor.type === 'user' && actor.id === target.id) throw conflict('You cannot delete yourself', [{ field: 'id', issue: 'is the calling user' }]);
  deps.db.transaction((tx) => {
    if (target.role === 'ADMIN') assertAnotherAdmin(tx, actor.tenantId, target.id);
    tx.delete(users).where(and(eq(users.id, target.id), eq(users.tenantId, actor.tenantId))).run();
  });
  return { id: target.id, deleted: true as const };
}

export async function changePassword(deps: AuthDeps, actor: Actor, id: string, input: z.infer<typeof ChangePasswordSchema>) {
  const target = getUserRow(deps, actor, id);
  const isSelf = actor.type === 'user' && actor.id === target.id;
  if (!isSelf && actor.role !== 'ADMIN') throw forbidden('Role ADMIN required to change another user\'s password');
  if (isSelf) {
    if (!input.current_password) throw new ApiError(422, 'Invalid input', [{ field: 'current_password', issue: 'is required to change your own password' }]);
    if (!(await deps.hasher.verify(input.current_password, target.passwordHash))) {
      throw new ApiError(422, 'Invalid input', [{ field: 'current_password', issue: 'is wrong' }]);
    }
  }
  const passwordHash = await deps.hasher.hash(input.new_password);
  deps.db.transaction((tx) => {
    // Bumping the token version ends every access token issued before, on every device.
    tx.update(users)
      .set({ passwordHash, tokenVersion: sql`${users.tokenVersion} + 1`, updatedAt: deps.now().toISOString() })
      .where(eq(users.id, target.id))
      .run();
    revokeUserSessions({ db: tx as unknown as AuthDeps['db'], now: deps.now }, target.id);
  });
}

function assertAnotherAdmin(tx: Pick<AuthDeps['db'], 'select'>, tenantId: string, exceptId: string) {
  const admins = tx
    .select({ n: sql<number>`count(*)` })
    .from(users)
    .where(and(eq(users.tenantId, tenantId), eq(users.role, 'ADMIN'), sql`${users.id} <> ${exceptId}`))
    .get();
  if (!admins || admins.n === 0) throw conflict('A tenant must keep at least one ADMIN', [{ field: 'role', issue: 'this is the last ADMIN of the tenant' }]);
}
