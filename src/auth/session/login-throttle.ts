import { and, desc, eq, gt, lt, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { loginAddresses, loginFailures } from '../../db/schema/index.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { ServiceError } from '../../lib/service-error.ts';
import { withTransaction, type Tx } from '../../db/index.ts';

/** Wrong passwords from an address that signed in to the email before, before that address waits. */
const MAX_FAILED_LOGINS = 5;
/** Attempts every other address together makes for one email (known or not) before they all wait. */
const MAX_NEW_ADDRESS_ATTEMPTS = 10;
const FIRST_WAIT_SECONDS = 60;
const LONGEST_WAIT_SECONDS = 3600;
/** A row untouched this long starts again from zero (the daily purgeLoginFailures deletes it). */
const FORGET_MS = 24 * 3600 * 1000;
/** The addresses remembered per email (the newest), and for how long after their last sign-in. */
const MAX_KNOWN_ADDRESSES = 10;
const KNOWN_FOR_MS = 90 * 24 * 3600 * 1000;

/** At the limit, then each further failure doubles the wait: 1, 2, 4 … 60 minutes. */
const waitSeconds = (failures: number, limit: number) => Math.min(LONGEST_WAIT_SECONDS, FIRST_WAIT_SECONDS * 2 ** (failures - limit));

function tooMany(retryAfter: number, own: boolean) {
  const issue = own
    ? 'too many failed logins for this email from this address'
    : 'too many login attempts for this email from addresses it never signed in from';
  return new ServiceError('too_many', 'Too many failed logins', [{ field: 'rate_limit', issue: `${issue}; retry in ${retryAfter} seconds` }], retryAfter);
}

/**
 * Counts a login attempt BEFORE its password is verified, in one write transaction, so concurrent guesses cannot all
 * pass a stale count: the limit-th reservation already sets the wait for the next. An address that signed in to the
 * email before has a budget of its own, so guesses from elsewhere never lock the owner out; every other address
 * spends the email's one budget, so more addresses buy no more guesses. Unknown emails are counted the same.
 */
export function createLoginThrottle(db: Db) {
  return {
    /** Reserves an attempt or throws 429; call `succeeded` when the password was right. */
    async reserve(email: string, address: string, now: Date): Promise<{ succeeded(): Promise<void> }> {
      const account = sha256Hex(email);
      const own = `${account}|${address}`;
      const nowMs = now.getTime();
      // serializable: the failure count read decides the block, so concurrent guesses never all pass a stale count
      const known = await withTransaction(db, { isolation: 'serializable', name: 'login.reserve' }, async (tx) => {
        const known =
          (
            await tx
              .select({ key: loginAddresses.key })
              .from(loginAddresses)
              .where(and(eq(loginAddresses.key, own), gt(loginAddresses.signedInAt, new Date(nowMs - KNOWN_FOR_MS).toISOString())))
          ).length === 1;
        const key = known ? own : account;
        const limit = known ? MAX_FAILED_LOGINS : MAX_NEW_ADDRESS_ATTEMPTS;
        const found = (await tx.select().from(loginFailures).where(eq(loginFailures.key, key)))[0];
        const row = found && Date.parse(found.updatedAt) > nowMs - FORGET_MS ? found : undefined; // an old row counts as none
        if (row?.blockedUntil && Date.parse(row.blockedUntil) > nowMs) throw tooMany(Math.ceil((Date.parse(row.blockedUntil) - nowMs) / 1000), known);
        const failures = (row?.failures ?? 0) + 1;
        const blockedUntil = failures >= limit ? new Date(nowMs + waitSeconds(failures, limit) * 1000).toISOString() : null;
        const values = { failures, blockedUntil, updatedAt: now.toISOString() };
        await tx
          .insert(loginFailures)
          .values({ key, ...values })
          .onConflictDoUpdate({ target: loginFailures.key, set: values });
        return known;
      });
      return {
        succeeded: () =>
          // read committed: a delete, a decrement of the latest row and the address remembered; nothing read decides them
          withTransaction(db, { isolation: 'read committed', name: 'login.succeeded' }, async (tx) => {
            if (known) await tx.delete(loginFailures).where(eq(loginFailures.key, own));
            else await giveBack(tx, account);
            await remember(tx, account, own, now);
          }),
      };
    },
    /** An address that proved the password another way (it registered the account) signs in as one that logged in. */
    remember: (email: string, address: string, now: Date) =>
      // read committed: an upsert of the address and the trim of the account's oldest ones; a concurrent trim keeps the newest too
      withTransaction(db, { isolation: 'read committed', name: 'login.remember' }, (tx) => {
        const account = sha256Hex(email);
        return remember(tx, account, `${account}|${address}`, now);
      }),
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;

/** The owner's own right password from a new address was no guess: its reservation is given back to the email. */
async function giveBack(tx: Tx, account: string) {
  await tx
    .update(loginFailures)
    .set({
      failures: sql`${loginFailures.failures} - 1`,
      blockedUntil: sql`case when ${loginFailures.failures} - 1 >= ${MAX_NEW_ADDRESS_ATTEMPTS} then ${loginFailures.blockedUntil} else null end`,
    })
    .where(and(eq(loginFailures.key, account), gt(loginFailures.failures, 0)));
}

/** Remembers the address, keeping the email's newest MAX_KNOWN_ADDRESSES: the list stays bounded whoever signs in. */
async function remember(tx: Tx, account: string, key: string, now: Date) {
  const signedInAt = now.toISOString();
  await tx.insert(loginAddresses).values({ key, account, signedInAt }).onConflictDoUpdate({ target: loginAddresses.key, set: { signedInAt } });
  const newest = await tx
    .select({ key: loginAddresses.key })
    .from(loginAddresses)
    .where(eq(loginAddresses.account, account))
    .orderBy(desc(loginAddresses.signedInAt), desc(loginAddresses.key))
    .limit(MAX_KNOWN_ADDRESSES);
  await tx.delete(loginAddresses).where(
    and(
      eq(loginAddresses.account, account),
      notInArray(
        loginAddresses.key,
        newest.map((r) => r.key),
      ),
    ),
  );
}

/** Daily: forgets rows untouched for FORGET_MS, and addresses not signed in from for KNOWN_FOR_MS, off the login path. */
export async function purgeLoginFailures(db: Db, now: Date): Promise<void> {
  await db.delete(loginFailures).where(lt(loginFailures.updatedAt, new Date(now.getTime() - FORGET_MS).toISOString()));
  await db.delete(loginAddresses).where(lt(loginAddresses.signedInAt, new Date(now.getTime() - KNOWN_FOR_MS).toISOString()));
}
