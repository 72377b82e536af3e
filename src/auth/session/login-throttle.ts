import { eq, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { loginFailures } from '../../db/schema/index.ts';
import type { RateLimits } from '../../gateway/rate-limit.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { ServiceError } from '../../lib/service-error.ts';
import { withTransaction } from '../../db/index.ts';

/** Wrong passwords from one address for one email before that address waits. */
const MAX_FAILED_LOGINS = 5;
const FIRST_WAIT_SECONDS = 60;
const LONGEST_WAIT_SECONDS = 3600;
/** An address that already failed for an email shares, with every other such address, this many attempts a minute. */
const ACCOUNT_ATTEMPTS_PER_MINUTE = 20;
/** A row untouched this long starts again from zero (the daily purgeLoginFailures deletes it). */
const FORGET_MS = 24 * 3600 * 1000;

/** At the limit, then each further failure doubles the wait: 1, 2, 4 … 60 minutes. */
const waitSeconds = (failures: number) => Math.min(LONGEST_WAIT_SECONDS, FIRST_WAIT_SECONDS * 2 ** (failures - MAX_FAILED_LOGINS));

function tooMany(retryAfter: number) {
  return new ServiceError(
    'too_many',
    'Too many failed logins',
    [{ field: 'rate_limit', issue: `too many failed logins for this email from this address; retry in ${retryAfter} seconds` }],
    retryAfter,
  );
}

/**
 * Counts a login attempt BEFORE its password is verified, in one write transaction, so concurrent guesses cannot
 * all pass a stale count: the MAX_FAILED_LOGINS-th reservation already sets the wait for the next. Per (email,
 * address): a guesser backs off, the owner logging in from elsewhere does not. Unknown emails are counted the same.
 */
export function createLoginThrottle(db: Db, rateLimits: RateLimits) {
  // A short brake on guessing one account from many addresses, counted in the attempt's transaction.
  const accounts = rateLimits('login-accounts', 60_000);

  return {
    /** Reserves an attempt or throws 429; call `succeeded` when the password was right. */
    async reserve(email: string, address: string, now: Date): Promise<{ succeeded(): Promise<void> }> {
      const account = sha256Hex(email);
      const key = `${account}|${address}`;
      const nowMs = now.getTime();
      await withTransaction(db, async (tx) => {
        const found = (await tx.select().from(loginFailures).where(eq(loginFailures.key, key)))[0];
        const row = found && Date.parse(found.updatedAt) > nowMs - FORGET_MS ? found : undefined; // an old row counts as none
        if (row?.blockedUntil && Date.parse(row.blockedUntil) > nowMs) throw tooMany(Math.ceil((Date.parse(row.blockedUntil) - nowMs) / 1000));
        const [shared] = row ? await accounts.hit([{ key: account, limit: ACCOUNT_ATTEMPTS_PER_MINUTE }], tx) : [];
        if (shared && !shared.allowed) throw tooMany(shared.retryAfter);
        const failures = (row?.failures ?? 0) + 1;
        const blockedUntil = failures >= MAX_FAILED_LOGINS ? new Date(nowMs + waitSeconds(failures) * 1000).toISOString() : null;
        const values = { failures, blockedUntil, updatedAt: now.toISOString() };
        await tx
          .insert(loginFailures)
          .values({ key, ...values })
          .onConflictDoUpdate({ target: loginFailures.key, set: values });
      });
      return { succeeded: async () => void (await db.delete(loginFailures).where(eq(loginFailures.key, key))) };
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;

/** Daily: forgets rows untouched for FORGET_MS, off the login path (a sweep there held the write lock on every attempt). */
export async function purgeLoginFailures(db: Db, now: Date): Promise<void> {
  await db.delete(loginFailures).where(lt(loginFailures.updatedAt, new Date(now.getTime() - FORGET_MS).toISOString()));
}
