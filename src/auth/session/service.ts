import { and, eq, isNull } from 'drizzle-orm';
import type { z } from '@hono/zod-openapi';
import { apiKeys, refreshTokens, tenants, users } from '../../db/schema/index.ts';
import type { AuditSubject } from '../../lib/audit.ts';
import type { Actor } from '../../lib/backend.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { ApiError, conflict, unauthorized } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Db } from '../../db/client.ts';
import type { AuthDeps } from '../deps.ts';
import { findTenant } from '../tenants/lookup.ts';
import { toTenant } from '../tenants/schemas.ts';
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from '../tokens.ts';
import { toUser, type UserRow } from '../users/schemas.ts';
import type { LoginSchema, RegisterSchema } from './schemas.ts';

const MAX_FAILED_LOGINS = 5;
const LOCK_SECONDS = 15 * 60;

export function emailTaken() {
  return conflict('Email already registered', [{ field: 'email', issue: 'is already registered' }]);
}

/** True when the error is SQLite's unique violation on users.email (a race between two sign-ups). */
export const isUniqueEmailViolation = (err: unknown) =>
  err instanceof Error && /UNIQUE constraint failed: users\.email/.test(err.message);

export async function registerTenant(deps: AuthDeps, input: z.infer<typeof RegisterSchema>) {
  // Checked before hashing only to spare the cost; the unique index decides (two sign-ups racing).
  if (deps.db.select({ id: users.id }).from(users).where(eq(users.email, input.email)).get()) throw emailTaken();
  const { tenant, user } = createTenantWithAdmin(deps.db, deps.now(), input, await deps.hasher.hash(input.password));
  return { body: { tenant: toTenant(tenant), user: toUser(user), ...(await issueTokens(deps, user, newId('fam'))) }, subject: subjectOf(user) };
}

/** The tenant and its first ADMIN, in one transaction: POST /auth/register, and the operator's create-tenant command. */
export function createTenantWithAdmin(db: Db, at: Date, input: Omit<z.infer<typeof RegisterSchema>, 'password'>, passwordHash: string) {
  const now = at.toISOString();
  const tenantId = newId('ten');
  const userId = newId('usr');
  try {
    db.transaction((tx) => {
      tx.insert(tenants).values({
        id: tenantId,
        rfc: input.tenant.rfc,
        nombre: input.tenant.nombre,
        regimenFiscal: input.tenant.regimen_fiscal,
        codigoPostal: input.tenant.codigo_postal,
        createdAt: now,
        updatedAt: now,
      }).run();
      tx.insert(users).values({
        id: userId,
        tenantId,
        email: input.email,
        passwordHash,
        nombre: input.nombre,
        role: 'ADMIN',
        lastLoginAt: now,
        createdAt: now,
        updatedAt: now,
      }).run();
    });
  } catch (err) {
    if (isUniqueEmailViolation(err)) throw emailTaken();
    throw err;
  }
  const tenant = db.select().from(tenants).where(eq(tenants.id, tenantId)).get()!;
  const user = db.select().from(users).where(eq(users.id, userId)).get()!;
  return { tenant, user };
}

export async function login(deps: AuthDeps, input: z.infer<typeof LoginSchema>) {
  const { db } = deps;
  const now = deps.now();
  const user = db.select().from(users).where(eq(users.email, input.email)).get();
  if (!user) {
    await deps.hasher.verifyDummy(input.password);
    throw unauthorized('Wrong email or password');
  }
  if (user.lockedUntil && new Date(user.lockedUntil) > now) {
    const retryAfter = Math.ceil((new Date(user.lockedUntil).getTime() - now.getTime()) / 1000);
    throw new ApiError(
      429,
      'Too many failed logins for this account',
      [{ field: 'email', issue: `account locked after ${MAX_FAILED_LOGINS} failed logins; retry in ${retryAfter} seconds` }],
      { 'Retry-After': String(retryAfter) },
    );
  }
  if (!(await deps.hasher.verify(input.password, user.passwordHash))) {
    const failed = user.failedLogins + 1;
    const lock = failed >= MAX_FAILED_LOGINS;
    db.update(users)
      .set({ failedLogins: lock ? 0 : failed, lockedUntil: lock ? new Date(now.getTime() + LOCK_SECONDS * 1000).toISOString() : user.lockedUntil })
      .where(eq(users.id, user.id))
      .run();
    throw unauthorized('Wrong email or password');
  }
  const nowIso = now.toISOString();
  db.update(users).set({ failedLogins: 0, lockedUntil: null, lastLoginAt: nowIso }).where(eq(users.id, user.id)).run();
  const fresh = { ...user, failedLogins: 0, lockedUntil: null, lastLoginAt: nowIso };
  return { body: { user: toUser(fresh), ...(await issueTokens(deps, fresh, newId('fam'))) }, subject: subjectOf(user) };
}

/** Rotate: a refresh token works once. Presenting an already-rotated one revokes its whole family. */
export async function refreshSession(deps: AuthDeps, token: string) {
  const { db } = deps;
  const now = deps.now();
  const row = db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, sha256Hex(token))).get();
  if (!row || row.revokedAt || new Date(row.expiresAt) <= now) throw unauthorized('Invalid or expired refresh token');
  if (row.rotatedAt) {
    revokeFamily(deps, row.familyId);
    throw unauthorized('Refresh token already used; every session of this login was revoked');
  }
  const user = db.select().from(users).where(eq(users.id, row.userId)).get();
  if (!user) throw unauthorized('Invalid or expired refresh token');
  // Claim the row atomically so two concurrent refreshes cannot both succeed.
  const claimed = db
    .update(refreshTokens)
    .set({ rotatedAt: now.toISOString() })
    .where(and(eq(refreshTokens.id, row.id), isNull(refreshTokens.rotatedAt)))
    .run();
  if (claimed.changes !== 1) {
    revokeFamily(deps, row.familyId);
    throw unauthorized('Refresh token already used; every session of this login was revoked');
  }
  return { body: await issueTokens(deps, user, row.familyId), subject: subjectOf(user) };
}

/** Whose login it was, when the token was known (an unknown one changes nothing). */
export function logout(deps: AuthDeps, token: string): AuditSubject | undefined {
  const row = deps.db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, sha256Hex(token))).get();
  if (!row) return undefined;
  revokeFamily(deps, row.familyId);
  return { tenantId: row.tenantId, actorType: 'user', actorId: row.userId };
}

/** Routes without a credential tell the audit log whom they acted for. */
const subjectOf = (user: UserRow): AuditSubject => ({ tenantId: user.tenantId, actorType: 'user', actorId: user.id });

function revokeFamily(deps: AuthDeps, familyId: string) {
  deps.db
    .update(refreshTokens)
    .set({ revokedAt: deps.now().toISOString() })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
    .run();
}

export function revokeUserSessions(deps: Pick<AuthDeps, 'db' | 'now'>, userId: string) {
  deps.db
    .update(refreshTokens)
    .set({ revokedAt: deps.now().toISOString() })
    .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
    .run();
}

async function issueTokens(deps: AuthDeps, user: UserRow, familyId: string) {
  const now = deps.now();
  const refreshToken = `rt_${randomToken(32)}`;
  deps.db.insert(refreshTokens).values({
    id: newId('rtk'),
    tenantId: user.tenantId,
    userId: user.id,
    familyId,
    tokenHash: sha256Hex(refreshToken),
    expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000).toISOString(),
    createdAt: now.toISOString(),
  }).run();
  const accessToken = await deps.accessTokens.sign({ sub: user.id, tid: user.tenantId, ver: user.tokenVersion }, now);
  return {
    access_token: accessToken,
    token_type: 'Bearer' as const,
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refreshToken,
  };
}

export function describeMe(deps: AuthDeps, actor: Actor) {
  const { db } = deps;
  const tenant = findTenant(db, actor.tenantId, deps.now().getTime());
  if (!tenant) throw unauthorized();
  if (actor.type === 'user') {
    const user = db.select().from(users).where(and(eq(users.id, actor.id), eq(users.tenantId, actor.tenantId))).get();
    if (!user) throw unauthorized();
    return { tenant: toTenant(tenant), environment: actor.environment, user: toUser(user), api_key: null };
  }
  const key = db.select().from(apiKeys).where(and(eq(apiKeys.id, actor.id), eq(apiKeys.tenantId, actor.tenantId))).get();
  if (!key) throw unauthorized();
  return {
    tenant: toTenant(tenant),
    environment: actor.environment,
    user: null,
    api_key: { id: key.id, name: key.name, environment: key.environment },
  };
}
