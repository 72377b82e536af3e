import { underBootLock } from './db/boot-lock.ts';
import type { Db } from './db/client.ts';
import { assertMasterKey } from './db/master-key.ts';
import type { DemoSetUp } from './demo.ts';
import { loadOrCreateSandboxSat, type SandboxSat } from './pac/sandbox.ts';

/** What the boot work found or made: each item exists once in the database, whichever instance made it. */
export interface BootWork {
  /** The master key check: sealed by this boot (`recorded`) or opened (`matched`). */
  masterKeyCheck: 'recorded' | 'matched';
  sandboxSat: SandboxSat;
  /** This boot made the sandbox "SAT" stamping identity. */
  sandboxSatCreated: boolean;
  /** DEMO=true: the demo tenant's set-up, run once the identity exists (it needs an app, hence the callback). */
  demo?: DemoSetUp;
}

/**
 * The work a start does once per database, after the migrations and before serving: everything that creates what is
 * missing in the shared database. It runs under the boot lock, so instances booting together never race: the first
 * does it, the others wait and find it done. A MASTER_KEY that does not open this database throws MasterKeyMismatch;
 * a boot lock not free within `lockTimeoutSeconds` (default 120) throws BootLockTimeout.
 */
export function runBootWork(
  db: Db,
  options: { masterKey: Buffer; demo?: (sandboxSat: SandboxSat) => Promise<DemoSetUp>; lockTimeoutSeconds?: number },
): Promise<BootWork> {
  return underBootLock(
    db,
    async () => {
      const masterKeyCheck = await assertMasterKey(db, options.masterKey);
      const { sandboxSat, created } = await loadOrCreateSandboxSat(db, options.masterKey);
      const demo = options.demo ? await options.demo(sandboxSat) : undefined;
      return { masterKeyCheck, sandboxSat, sandboxSatCreated: created, ...(demo ? { demo } : {}) };
    },
    options.lockTimeoutSeconds,
  );
}
