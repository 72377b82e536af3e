import { afterAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { TEST_ENGINE } from './helpers.ts';
import { dropLeftovers, POSTGRES, SPACE } from './postgres.ts';

/**
 * tests/postgres.ts drops the databases of test runs that died before their cleanup, and only those: a run in another
 * container or on another machine sharing the server (its process id means nothing here) keeps its databases.
 */
describe.skipIf(!POSTGRES || TEST_ENGINE !== 'postgres')('test databases left behind', () => {
  const sql = postgres(POSTGRES ?? '', { max: 1, onnotice: () => {} });
  const names: string[] = [];
  afterAll(async () => {
    for (const name of names) await sql.unsafe(`drop database if exists ${name} with (force)`);
    await sql.end({ timeout: 1 });
  });
  const exists = async (name: string) => (await sql`select 1 from pg_database where datname = ${name}`).length === 1;

  test("a dead run's databases of this machine are dropped; another machine's or container's, with the same pid, are not", async () => {
    const gone = Bun.spawn(['true']);
    await gone.exited; // a process id that no longer runs here
    const other = SPACE === '00000000' ? '11111111' : '00000000';
    const mine = `cfdi_test_${gone.pid}_${SPACE}_left`;
    const theirs = `cfdi_test_${gone.pid}_${other}_live`;
    for (const name of [mine, theirs]) {
      names.push(name);
      await sql.unsafe(`create database ${name}`);
    }
    await dropLeftovers();
    expect({ mine: await exists(mine), theirs: await exists(theirs) }).toEqual({ mine: false, theirs: true });
  });
});
