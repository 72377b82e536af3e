import { afterAll } from 'bun:test';

// Preloaded (bunfig.toml): on PostgreSQL, the databases the run made are dropped after the last test file.
if (process.env.TEST_ENGINE === 'postgres') {
  const { dropMigratedDatabases } = await import('./postgres.ts');
  afterAll(dropMigratedDatabases, 120_000);
}
