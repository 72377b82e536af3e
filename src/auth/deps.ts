import type { Db } from '../db/client.ts';
import type { RateLimits } from '../gateway/rate-limit.ts';
import type { PasswordHasher } from './passwords.ts';
import type { AccessTokens } from './tokens.ts';

export interface AuthDeps {
  db: Db;
  now: () => Date;
  hasher: PasswordHasher;
  accessTokens: AccessTokens;
  /** `closed`: POST /auth/register is refused (403); only the operator's create-tenant command creates tenants. */
  registration?: 'open' | 'closed';
  /** Sign-ups (POST /auth/register) allowed per hour from one client address, and in all. */
  registrationLimits: { perAddress: number; total: number };
  /** Counters of the login and registration budgets (shared by every instance on PostgreSQL). */
  rateLimits: RateLimits;
}
