import type Database from 'better-sqlite3';
import { openSecret, sealSecret, SecretBoxError } from '../lib/secret-box.ts';
import type { Db } from './client.ts';
import { addSetting, readSetting } from './settings.ts';

const CHECK_KEY = 'master_key_check';
const CHECK_TEXT = Buffer.from('cfdi-api master key check', 'utf8');

export class MasterKeyMismatch extends Error {}

/**
 * The first start seals a known text under the master key (`recorded`); every later start opens it (`matched`). A
 * different MASTER_KEY (or a lost master-key file) then fails at start-up with a clear message, never later as an
 * undecryptable CSD.
 */
export async function assertMasterKey(db: Db, masterKey: Buffer): Promise<'recorded' | 'matched'> {
  let state = checkState(await readSetting(db, CHECK_KEY), masterKey);
  if (state === 'missing') {
    await addSetting(db, CHECK_KEY, sealSecret(masterKey, CHECK_TEXT, CHECK_KEY));
    // Read back: an instance starting outside the boot lock may have recorded its own key first.
    state = checkState(await readSetting(db, CHECK_KEY), masterKey);
    if (state === 'ok') return 'recorded';
  }
  if (state === 'ok') return 'matched';
  throw new MasterKeyMismatch(
    'MASTER_KEY does not match the key this database was encrypted with: stored CSD private keys cannot be read. ' +
      'Start with the original MASTER_KEY (or restore DATA_DIR/master-key).',
  );
}

/** Whether `masterKey` opens this database's check text (a backup is checked before it is restored). */
export function masterKeyState(sqlite: Database.Database, masterKey: Buffer): 'ok' | 'mismatch' | 'missing' {
  const row = sqlite.prepare('select value from settings where key = ?').get(CHECK_KEY) as { value: Buffer } | undefined;
  return checkState(row?.value, masterKey);
}

function checkState(sealed: Buffer | undefined, masterKey: Buffer): 'ok' | 'mismatch' | 'missing' {
  if (!sealed) return 'missing';
  try {
    return openSecret(masterKey, sealed, CHECK_KEY).equals(CHECK_TEXT) ? 'ok' : 'mismatch';
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    return 'mismatch';
  }
}
