import { eq } from 'drizzle-orm';
import type { DbOrTx } from './connection.ts';
import { settings } from './schema/index.ts';

/** The `settings` table's statements: service-wide values (catalog version, sandbox SAT identity, health probe). */

export const readSetting = async (db: DbOrTx, key: string): Promise<Buffer | undefined> =>
  (await db.select({ value: settings.value }).from(settings).where(eq(settings.key, key)))[0]?.value;

/** Sets `key`, replacing any value it had. */
export async function writeSetting(db: DbOrTx, key: string, value: Buffer, now: Date): Promise<void> {
  const updatedAt = Math.floor(now.getTime() / 1000);
  await db.insert(settings).values({ key, value, updatedAt }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt } });
}

/** Sets `key` unless it has a value: the first writer wins. */
export async function addSetting(db: DbOrTx, key: string, value: Buffer): Promise<void> {
  await db.insert(settings).values({ key, value }).onConflictDoNothing();
}

export async function deleteSetting(db: DbOrTx, key: string): Promise<void> {
  await db.delete(settings).where(eq(settings.key, key));
}
