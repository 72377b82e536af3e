import { eq } from 'drizzle-orm';
import { openSecret, sealSecret, SecretBoxError } from '../lib/secret-box.ts';
import type { Db } from './client.ts';
import { settings } from './schema/index.ts';

const CHECK_KEY = 'master_key_check';
const CHECK_TEXT = Buffer.from('cfdi-api master key check', 'utf8');

export class MasterKeyMismatch extends Error {}

/**
 * The first start seals a known text under the master key; every later start opens it. A different MASTER_KEY
 * (or a lost master-key file) then fails at start-up with a clear message, never later as an undecryptable CSD.
 */
export function assertMasterKey(db: Db, masterKey: Buffer): void {
  const row = db.select().from(settings).where(eq(settings.key, CHECK_KEY)).get();
  if (!row) {
    db.insert(settings).values({ key: CHECK_KEY, value: sealSecret(masterKey, CHECK_TEXT, CHECK_KEY) }).onConflictDoNothing().run();
    return;
  }
  try {
    if (openSecret(masterKey, row.value, CHECK_KEY).equals(CHECK_TEXT)) return;
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
  }
  throw new MasterKeyMismatch(
    'MASTER_KEY does not match the key this database was encrypted with: stored CSD private keys cannot be read. ' +
      'Start with the original MASTER_KEY (or restore DATA_DIR/master-key).',
  );
}
