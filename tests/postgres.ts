import { createHash } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
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

/**
 * Every database this process makes is named `cfdi_test_<pid>_<space>_…`, so a later run can drop what a killed one
 * left behind. A process id means something only in its own PID namespace on its own machine: `space` names both
 * (hostname, /proc/self/ns/pid), so a run in another container or on another machine sharing the server is never
 * taken for a dead run of this one, nor its databases dropped. The pid comes first, where older runs read it.
 */
const PREFIX = 'cfdi_test_';
export const SPACE = processSpace();
const OWN = `${PREFIX}${process.pid}_${SPACE}_`;

function processSpace(): string {
  let namespace = '';
  try {
    namespace = readlinkSync('/proc/self/ns/pid');
  } catch {} // no /proc (macOS): the hostname alone
  return createHash('sha256').update(`${hostname()}\n${namespace}`).digest('hex').slice(0, 8);
}

let admin: postgres.Sql | undefined;
// Several connections: dropping a database takes most of a second, and the end of a run drops a hundred.
const adminSql = () => (admin ??= postgres(POSTGRES ?? URL, { max: 8, onnotice: () => {} }));
const urlOf = (name: string) => {
  const url = new globalThis.URL(POSTGRES ?? URL);
  url.pathname = `/${name}`;
  return url.toString();
};
const newName = () => `${OWN}${Math.random().toString(36).slice(2, 8)}`;

/** A new, empty database on that server, and a function that drops it. */
export async function scratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!POSTGRES) throw new Error('no PostgreSQL');
  const name = newName();
  await adminSql().unsafe(`create database ${name}`);
  return { url: urlOf(name), drop: () => dropDatabase(name) };
}

async function dropDatabase(name: string) {
  await adminSql().unsafe(`drop database if exists ${name} with (force)`);
}

let template: Promise<string> | undefined;

/**
 * A new database already migrated: a copy of one template this process migrates once (CREATE DATABASE … TEMPLATE
 * copies files, far faster than replaying the migrations for every test app). `migrate` migrates the template.
 */
export async function migratedDatabase(migrate: (url: string) => Promise<void>): Promise<string> {
  if (!POSTGRES) throw new Error('no PostgreSQL');
  template ??= (async () => {
    await dropLeftovers();
    const name = `${OWN}template`;
    await dropDatabase(name);
    await adminSql().unsafe(`create database ${name}`);
    await migrate(urlOf(name));
    return name;
  })();
  const source = await template;
  // Copies made ahead, while the tests run: a copy takes a tenth of a second the server spends mostly writing.
  while (ahead.length <= AHEAD) ahead.push(copyOf(source));
  return urlOf(await ahead.shift()!);
}

/** How many copies of the template wait ready beyond the one being taken. */
const AHEAD = 2;
const ahead: Promise<string>[] = [];

function copyOf(source: string): Promise<string> {
  const name = newName();
  created.push(name);
  const copy = adminSql()
    .unsafe(`create database ${name} template ${source}`)
    .then(() => name);
  copy.catch(() => {}); // a copy never taken fails nothing; one taken fails its taker
  return copy;
}

const created: string[] = [];
const pools: (() => Promise<void>)[] = [];

/** Registers how to close a pool on one of those databases, so the run's end closes it before dropping the database. */
export const closeAtEnd = (close: () => Promise<void>) => void pools.push(close);

/** Closes the pools, then drops the databases `migratedDatabase` made (the test run's end). */
export async function dropMigratedDatabases() {
  await Promise.allSettled(ahead.splice(0));
  await Promise.all(pools.splice(0).map((close) => close().catch(() => {})));
  await Promise.all(created.splice(0).map(dropDatabase));
  if (template) await dropDatabase(await template);
  await admin?.end({ timeout: 1 });
  admin = undefined;
}

/** Databases of test processes that no longer run (killed before their cleanup). */
export async function dropLeftovers() {
  const rows = await adminSql()<{ datname: string }[]>`select datname from pg_database where starts_with(datname, ${PREFIX})`;
  for (const { datname } of rows) {
    const [pid, space] = datname.slice(PREFIX.length).split('_');
    if (space !== SPACE || Number(pid) === process.pid || alive(Number(pid))) continue;
    await dropDatabase(datname);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
