import postgres from 'postgres';

/**
 * The PostgreSQL the suites that need one use: TEST_DATABASE_URL, or the development machine's local server. Absent,
 * those suites skip with one line saying so, unless REQUIRE_POSTGRES is set (CI), where its absence fails them.
 */
const URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function reachable(): Promise<boolean> {
  const sql = postgres(URL, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch (err) {
    if (process.env.REQUIRE_POSTGRES) throw new Error(`REQUIRE_POSTGRES is set but PostgreSQL at ${URL} is not reachable: ${(err as Error).message}`);
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

export const POSTGRES = (await reachable()) ? URL : undefined;
if (!POSTGRES) console.log(`PostgreSQL not reachable at ${URL} (set TEST_DATABASE_URL): its suites skip`);

/** A new, empty database on that server, and a function that drops it. */
export async function scratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!POSTGRES) throw new Error('no PostgreSQL');
  const name = `cfdi_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(POSTGRES, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new globalThis.URL(POSTGRES);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
