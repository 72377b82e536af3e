import type { DomicilioFiscal, Environment, Role } from '../db/schema/index.ts';
import type { Plan } from './plans.ts';

/** The claims of a verified access token (JWT). */
export interface AccessClaims {
  /** user id */
  sub: string;
  /** tenant id */
  tid: string;
  /** the user's token version when issued; a password change or deletion bumps it */
  ver: number;
  /** expiry, Unix seconds (set on verify) */
  exp?: number;
}

interface ApiKeyIdentity {
  id: string;
  tenantId: string;
  environment: Environment;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

interface UserIdentity {
  id: string;
  tenantId: string;
  role: Role;
  tokenVersion: number;
}

/** The issuer's fiscal data, as the invoice backend needs it for the Emisor, and the Reply-To of its CFDI emails. */
interface TenantIdentity {
  id: string;
  rfc: string;
  nombre: string;
  regimenFiscal: string;
  codigoPostal: string;
  /** The fiscal address on its profile (Comercio Exterior's Emisor/Domicilio); null when none is set. */
  domicilioFiscal: DomicilioFiscal | null;
  replyTo: string | null;
  /** What its email budget is raised by (emailDailyLimitOf). */
  plan: Plan;
}

/**
 * Who is who, as the auth backend knows it (src/auth/directory.ts), injected into the gateway and the invoice
 * backend so that neither reads auth's tables.
 */
export interface IdentityDirectory {
  /** Verifies an access token's signature and expiry (throws 401); the caller still checks the user's row. */
  verifyAccessToken(token: string): Promise<AccessClaims>;
  /** The API key with this SHA-256 (hex) hash, revoked or not. */
  apiKeyByHash(hash: string): Promise<ApiKeyIdentity | undefined>;
  /** Records when a key was last used (ISO date-time). */
  markApiKeyUsed(id: string, at: string): Promise<void>;
  userById(id: string): Promise<UserIdentity | undefined>;
  /** The addresses of the tenant's users (lower-case): where its test-mode emails may go. */
  userEmails(tenantId: string): Promise<string[]>;
  tenantById(id: string): Promise<TenantIdentity | undefined>;
  /** Requests per minute the tenant's plan allows, or undefined when there is no such tenant. */
  planLimit(tenantId: string): Promise<number | undefined>;
  /** The tenant's users by role, and its API keys of `environment` not revoked (GET /stats). */
  members(tenantId: string, environment: Environment): Promise<{ usersByRole: Partial<Record<Role, number>>; activeApiKeys: number }>;
}
