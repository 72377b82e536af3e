import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, inArray } from 'drizzle-orm';
import { runBootWork } from '../src/boot.ts';
import { openDatabase } from '../src/db/client.ts';
import { MasterKeyMismatch } from '../src/db/master-key.ts';
import { openPostgres } from '../src/db/postgres/client.ts';
import { apiKeys, csds, settings, tenants, users } from '../src/db/schema/index.ts';
import { DEMO_EMAIL, setUpDemo } from '../src/demo.ts';
import { createLogger } from '../src/lib/logger.ts';
import { closeDatabase, count, createTestApp, TEST_MASTER_KEY } from './helpers.ts';
import { POSTGRES, scratchDatabase } from './postgres.ts';

const ONCE_ONLY_SETTINGS = ['master_key_check', 'sandbox_sat_certificate', 'sandbox_sat_key'];
const logger = createLogger('silent');

describe('boot work on SQLite', () => {
  test('the first boot records the master key check and makes the sandbox identity; the next finds them', async () => {
    const db = openDatabase(':memory:');
    const first = await runBootWork(db, { masterKey: TEST_MASTER_KEY });
    expect(first).toMatchObject({ masterKeyCheck: 'recorded', sandboxSatCreated: true });
    const second = await runBootWork(db, { masterKey: TEST_MASTER_KEY });
    expect(second).toMatchObject({ masterKeyCheck: 'matched', sandboxSatCreated: false });
    expect(second.sandboxSat.certificateDer.equals(first.sandboxSat.certificateDer)).toBe(true);
    expect(runBootWork(db, { masterKey: Buffer.alloc(32, 9) })).rejects.toBeInstanceOf(MasterKeyMismatch);
    await closeDatabase(db);
  });
});

/**
 * Issue 21: several instances booting together on one PostgreSQL database. Each instance is its own pool (as its own
 * process would be); the demo set-up runs too, the boot work that would most visibly duplicate without the lock.
 */
describe.skipIf(!POSTGRES)('boot work of instances starting together on PostgreSQL', () => {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  beforeAll(async () => {
    scratch = await scratchDatabase();
  });
  afterAll(async () => {
    await scratch?.drop();
  });

  test('3 concurrent boots leave one master key check, one sandbox identity, one demo tenant', async () => {
    // Each opens its pool (and migrates) before the boots start, so the three boot works overlap.
    const instances = await Promise.all([1, 2, 3].map(() => openPostgres(scratch.url, { max: 3 })));
    try {
      const boots = await Promise.all(
        instances.map((db) =>
          runBootWork(db, {
            masterKey: TEST_MASTER_KEY,
            demo: async (sandboxSat) => setUpDemo({ app: (await createTestApp({ db, sandboxSat })).app, db, logger }),
          }),
        ),
      );
      expect(boots.map((b) => b.masterKeyCheck).sort()).toEqual(['matched', 'matched', 'recorded']);
      expect(boots.filter((b) => b.sandboxSatCreated)).toHaveLength(1);
      for (const b of boots) expect(b.sandboxSat.certificateDer.equals(boots[0]!.sandboxSat.certificateDer)).toBe(true);
      expect(boots.map((b) => b.demo?.state).sort()).toEqual(['created', 'exists', 'exists']);

      const db = instances[0]!;
      expect(await count(db, settings, inArray(settings.key, ONCE_ONLY_SETTINGS))).toBe(ONCE_ONLY_SETTINGS.length);
      expect(await count(db, tenants)).toBe(1);
      expect(await count(db, users, eq(users.email, DEMO_EMAIL))).toBe(1);
      expect(await count(db, apiKeys)).toBe(1);
      expect(await count(db, csds)).toBe(1);
    } finally {
      await Promise.all(instances.map((db) => closeDatabase(db)));
    }
  }, 60_000);
});
