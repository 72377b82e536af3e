/**
 * `npm test`'s second pass: the whole suite again with TEST_ENGINE=postgres. Without a reachable PostgreSQL it has
 * said so in one line (tests/postgres.ts) and passes, unless REQUIRE_POSTGRES is set (CI), where that fails it.
 */
import { POSTGRES } from './postgres.ts';

if (POSTGRES) {
  console.log(`The suite on PostgreSQL (${POSTGRES}):`);
  // A longer per-test timeout than bun's 5 s: a test's first app copies a database, slower on a loaded machine.
  const run = Bun.spawn([process.execPath, 'test', '--timeout', '30000', ...process.argv.slice(2)], {
    env: { ...process.env, TEST_ENGINE: 'postgres' },
    stdio: ['inherit', 'inherit', 'inherit'],
  });
  process.exitCode = await run.exited;
}
