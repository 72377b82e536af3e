import { and, eq, isNull } from 'drizzle-orm';
import type { z } from '@hono/zod-openapi';
import { apiKeys, refreshTokens, tenants, users } from '../../db/schema/index.ts';
import type { AuditSubject } from '../../lib/audit.ts';
import type { Actor } from '../../lib/backend.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { conflict, ServiceError, unauthenticated } from '../../lib/service-error.ts';
import { newId } from '../../lib/ids.ts';
import type { Db } from '../../db/client.ts';
import type { AuthDeps } from '../deps.ts';
import { findTenant } from '../tenants/lookup.ts';
import { toTenant } from '../tenants/schemas.ts';
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from '../tokens.ts';
import { toUser, type UserRow } from '../users/schemas.ts';
import type { LoginThrottle } from './login-throttle.ts';
import type { LoginSchema, RegisterSchema } from './schemas.ts';
import { withTransaction, type DbOrTx } from '../../db/index.ts';
import { uniqueViolation } from '../../db/engine.ts';

/** Only within one tenant: whether another tenant has the email is never told (docs/decisions.md). */
export function emailTaken() {
  return conflict('Email already used in this tenant', [{ field: 'email', issue: 'is already the email of a user of this tenant' }]);
}

/** True when the error is the unique violation on (tenant, email): a race between two writes. */
export const isUniqueEmailViolation = (err: unknown) => {
  const violated = uniqueViolation(err);
  return violated?.table === 'users' && violated.columns.includes('email');
};

/** A new tenant: its first user's email cannot clash, whatever other tenants use. */
export async function registerTenant(deps: AuthDeps, input: z.infer<typeof RegisterSchema>) {
  const { tenant, user } = await createTenantWithAdmin(deps.db, deps.now(), input, await deps.hasher.hash(input.password));
  return { body: { tenant: toTenant(tenant), user: toUser(user), ...(await issueTokens(deps, user, newId('fam'))) }, subject: subjectOf(user) };
}

/** The tenant and its first ADMIN, in one transaction: POST /auth/register, and the operator's create-tenant command. */
export async function createTenantWithAdmin(db: Db, at: Date, input: Omit<z.infer<typeof RegisterSchema>, 'password'>, passwordHash: string) {
  const now = at.toISOString();
  const tenantId = newId('ten');
  const userId = newId('usr');
  // read committed: inserts of new rows (new ids); the unique index on the user's email is the only check
  await withTransaction(db, { isolation: 'read committed', name: 'tenants.create' }, async (tx) => {
    await tx.insert(tenants).values({
      id: tenantId,
      rfc: input.tenant.rfc,
      nombre: input.tenant.nombre,
      regimenFiscal: input.tenant.regimen_fiscal,
      codigoPostal: input.tenant.codigo_postal,
      createdAt: now,
      updatedAt: now,
    });
    await tx.insert(users).values({
      id: userId,
      tenantId,
      email: input.email,
      passwordHash,
      nombre: input.nombre,
      role: 'ADMIN',
      lastLoginAt: now,
      createdAt: now,
      updatedAt: now,
    });
  });
  const tenant = (await db.select().from(tenants).where(eq(tenants.id, tenantId)))[0]!;
  const user = (await db.select().from(users).where(eq(users.id, userId)))[0]!;
  return { tenant, user };
}

/**
 * The attempt is counted before the password is checked (login-throttle.ts). Without `tenant_id` only an email of one
 * tenant's user logs in: of several, none is picked (docs/decisions.md, "Login without tenant_id"). An unknown email,
 * and one of several tenants without `tenant_id`, cost the same verification and get the same answer as a wrong password.
 */
export async function login(deps: AuthDeps, throttle: LoginThrottle, input: z.infer<typeof LoginSchema>, clientAddress: string) {
  const { db } = deps;
  const now = deps.now();
  const attempt = await throttle.reserve(input.email, clientAddress, now);
  const found = await db
    .select()
    .from(users)
    .where(and(eq(users.email, input.email), input.tenant_id === undefined ? undefined : eq(users.tenantId, input.tenant_id)))
    .limit(2);
  const user = found.length === 1 ? found[0] : undefined;
  const right = user ? await deps.hasher.verify(input.password, user.passwordHash) : await deps.hasher.verifyDummy(input.password);
  if (!user || !right) throw wrongLogin();
  await attempt.succeeded();
  const nowIso = now.toISOString();
  await db.update(users).set({ lastLoginAt: nowIso }).where(eq(users.id, user.id));
  const fresh = { ...user, lastLoginAt: nowIso };
  return { body: { user: toUser(fresh), ...(await issueTokens(deps, fresh, newId('fam'))) }, subject: subjectOf(user) };
}

/** One answer for every refused login, so it tells nothing of which emails exist, or in how many tenants. */
const wrongLogin = () =>
  new ServiceError('unauthenticated', 'Wrong email or password', [
    { field: 'authorization', issue: 'wrong email or password (an email that is a user of several tenants logs in with tenant_id)' },
  ]);

/** Rotate: a refresh token works once. Presenting an already-rotated one revokes its whole family. */
export async function refreshSession(deps: AuthDeps, token: string) {
  const { db } = deps;
  const now = deps.now();
  const row = (
    await db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256Hex(token)))
  )[0];
  if (!row || row.revokedAt || new Date(row.expiresAt) <= now) throw unauthenticated('Invalid or expired refresh token');
  if (row.rotatedAt) {
    await revokeFamily(deps, row.familyId);
    throw unauthenticated('Refresh token already used; every session of this login was revoked');
  }
  const user = (await db.select().from(users).where(eq(users.id, row.userId)))[0];
  if (!user) throw unauthenticated('Invalid or expired refresh token');
  // Claim the row atomically so two concurrent refreshes cannot both succeed.
  const claimed = await db
    .update(refreshTokens)
    .set({ rotatedAt: now.toISOString() })
    .where(and(eq(refreshTokens.id, row.id), isNull(refreshTokens.rotatedAt)))
    .returning({ id: refreshTokens.id });
  if (claimed.length !== 1) {
    await revokeFamily(deps, row.familyId);
    throw unauthenticated('Refresh token already used; every session of this login was revoked');
  }
  return { body: await issueTokens(deps, user, row.familyId), subject: subjectOf(user) };
}

/** Whose login it was, when the token was known (an unknown one changes nothing). */
export async function logout(deps: AuthDeps, token: string): Promise<AuditSubject | undefined> {
  const row = (
    await deps.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256Hex(token)))
  )[0];
  if (!row) return undefined;
  await revokeFamily(deps, row.familyId);
  return { tenantId: row.tenantId, actorType: 'user', actorId: row.userId };
}

/** Routes without a credential tell the audit log whom they acted for. */
const subjectOf = (user: UserRow): AuditSubject => ({ tenantId: user.tenantId, actorType: 'user', actorId: user.id });

async function revokeFamily(deps: AuthDeps, familyId: string) {
  await deps.db
    .update(refreshTokens)
    .set({ revokedAt: deps.now().toISOString() })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
}

export async function revokeUserSessions(deps: { db: DbOrTx; now: () => Date }, userId: string) {
  await deps.db
    .update(refreshTokens)
    .set({ revokedAt: deps.now().toISOString() })
    .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)));
}

async function issueTokens(deps: AuthDeps, user: UserRow, familyId: string) {
  const now = deps.now();
  const refreshToken = `rt_${randomToken(32)}`;
  await deps.db.insert(refreshTokens).values({
    id: newId('rtk'),
    tenantId: user.tenantId,
    userId: user.id,
    familyId,
    tokenHash: sha256Hex(refreshToken),
    expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000).toISOString(),
    createdAt: now.toISOString(),
  });
  const accessToken = await deps.accessTokens.sign({ sub: user.id, tid: user.tenantId, ver: user.tokenVersion }, now);
  return {
    access_token: accessToken,
    token_type: 'Bearer' as const,
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refreshToken,
  };
}

export async function describeMe(deps: AuthDeps, actor: Actor) {
  const { db } = deps;
  const tenant = await findTenant(db, actor.tenantId, deps.now().getTime());
  if (!tenant) throw unauthenticated();
  if (actor.type === 'user') {
    const user = (
      await db
        .select()
        .from(users)
        .where(and(eq(users.id, actor.id), eq(users.tenantId, actor.tenantId)))
    )[0];
    if (!user) throw unauthenticated();
    return { tenant: toTenant(tenant), environment: actor.environment, user: toUser(user), api_key: null };
  }
  const key = (
    await db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, actor.id), eq(apiKeys.tenantId, actor.tenantId)))
  )[0];
  if (!key) throw unauthenticated();
  return {
    tenant: toTenant(tenant),
    environment: actor.environment,
    user: null,
    api_key: { id: key.id, name: key.name, environment: key.environment },
  };
}

/**
 * The console's session (src/console): its cookie holds the refresh token of a login, used as it is, never rotated.
 * It is live while that token is neither revoked (logout, a password change, a reused token revoke its family or the
 * user's) nor rotated (presented to POST /auth/refresh) nor expired; then a fresh access token for its user, which
 * the console sends to the API as any client would.
 */
export async function accessTokenOfSession(deps: Pick<AuthDeps, 'db' | 'now' | 'accessTokens'>, token: string): Promise<string | undefined> {
  const now = deps.now();
  const row = (
    await deps.db
      .select({ userId: users.id, tenantId: users.tenantId, tokenVersion: users.tokenVersion, expiresAt: refreshTokens.expiresAt })
      .from(refreshTokens)
      .innerJoin(users, eq(users.id, refreshTokens.userId))
      .where(and(eq(refreshTokens.tokenHash, sha256Hex(token)), isNull(refreshTokens.revokedAt), isNull(refreshTokens.rotatedAt)))
  )[0];
  if (!row || new Date(row.expiresAt) <= now) return undefined;
  return deps.accessTokens.sign({ sub: row.userId, tid: row.tenantId, ver: row.tokenVersion }, now);
}
