import type Database from 'better-sqlite3';
import { sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { components, paths, PathsWith } from '../clients/typescript/src/index.ts';
import { createApp, type AppDeps } from '../src/app.ts';
import type { Heartbeat } from '../src/jobs/scheduler.ts';
import { coordinationFor } from '../src/topology/one-database.ts';
import { openDatabase } from '../src/db/client.ts';
import { type Db, type DbOrTx, executeSql } from '../src/db/index.ts';
import { closeDatabase, sqliteOf } from '../src/db/engine.ts';
import { openPostgres } from '../src/db/postgres/client.ts';
import { setTenantPlan } from '../src/auth/tenants/service.ts';
import type { Plan } from '../src/lib/plans.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createSandboxSat, type SandboxSat } from '../src/pac/sandbox.ts';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-0123456789';
export const TEST_MASTER_KEY = Buffer.alloc(32, 7);

let sandboxSat: SandboxSat | undefined;
/** One sandbox stamping identity per test process (generating an RSA key costs ~100 ms). */
export const testSandboxSat = (): SandboxSat => (sandboxSat ??= createSandboxSat());

/** EKU9003173C9 is SAT's test taxpayer (persona moral, its CSD is in the SAT test material). */
export const TENANT = { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', codigo_postal: '42501' };
/** A receptor from SAT's test data (persona moral, 601, G03), the one most tests invoice. */
export const ICV = { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' };
/** IVA trasladado at 16 %, the tax most test conceptos carry. */
const iva16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
/** One service concepto of 100 with IVA 16 %, fields overridable. */
export const concepto = (over: Record<string, unknown> = {}) => ({
  clave_prod_serv: '84111506',
  clave_unidad: 'E48',
  descripcion: 'Servicio',
  cantidad: 1,
  valor_unitario: 100,
  impuestos: iva16,
  ...over,
});
/** An Ingreso (PUE, transfer) to ICV with that one concepto, fields overridable. */
export const ingreso = (over: Record<string, unknown> = {}) => ({ tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [concepto()], ...over });

interface TestClock {
  now: Date;
  advance(ms: number): void;
}

/**
 * The engine the suite runs on: SQLite (default), or PostgreSQL when TEST_ENGINE=postgres (`npm test` runs the suite
 * once on each). Tests about one engine itself skip on the other with `describe.skipIf(TEST_ENGINE !== …)`.
 */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** A fresh database on the suite's engine, migrated with the real migrations: in memory, or a new PostgreSQL database. */
async function openTestDatabase(): Promise<Db> {
  if (TEST_ENGINE === 'sqlite') return openDatabase(':memory:');
  return openTestPool(await migratedPostgresUrl());
}

/** A pool on a test database, closed at the run's end before the database is dropped (tests/setup.ts). */
async function openTestPool(url: string): Promise<Db> {
  const db = await openPostgres(url, { max: 4, idleSeconds: 1 });
  (await import('./postgres.ts')).closeAtEnd(() => closeDatabase(db));
  return db;
}

/** A new migrated PostgreSQL database (a copy of the run's template). */
async function migratedPostgresUrl(): Promise<string> {
  const { migratedDatabase } = await import('./postgres.ts');
  return migratedDatabase(async (template) => closeDatabase(await openPostgres(template)));
}

/**
 * One fresh database on the suite's engine seen through `n` handles, as `n` instances see it: a SQLite file opened
 * `n` times (one connection each), or `n` PostgreSQL pools. On SQLite the handles' transactions must not overlap:
 * the synchronous driver's wait for the file lock blocks this process's event loop, so the holder never commits.
 */
export async function sharedTestDatabase(n = 2): Promise<Db[]> {
  if (TEST_ENGINE === 'sqlite') {
    const path = join(mkdtempSync(join(tmpdir(), 'cfdi-shared-')), 'cfdi.db');
    return Array.from({ length: n }, () => openDatabase(path));
  }
  const url = await migratedPostgresUrl();
  return Promise.all(Array.from({ length: n }, () => openTestPool(url)));
}

/**
 * A fresh app on a fresh database (openTestDatabase). `heartbeat`: the scheduler's, as /health reads it (default: one
 * that ticks with the test clock); `listen`: hear other instances on PostgreSQL (default false).
 */
export async function createTestApp({ heartbeat, listen, ...overrides }: Partial<AppDeps> & { heartbeat?: Heartbeat; listen?: boolean } = {}) {
  const db = overrides.db ?? (await openTestDatabase());
  const clock: TestClock = {
    now: new Date(),
    advance(ms) {
      this.now = new Date(this.now.getTime() + ms);
    },
  };
  const logger = overrides.logger ?? createLogger('silent');
  const now = 'now' in overrides ? overrides.now : () => clock.now;
  const app = createApp({
    db,
    // One instance: its own writes drop its caches; each listener would hold a connection until the run ends. A clock
    // the app is given sets the rate windows too; otherwise the database's clock does (PostgreSQL).
    coordination: coordinationFor(db, {
      heartbeat: heartbeat ?? { lastTickAt: () => clock.now.getTime(), intervalMs: 5000 },
      clock: now,
      logger,
      listen: listen ?? false,
    }),
    jwtSecret: TEST_JWT_SECRET,
    masterKey: TEST_MASTER_KEY,
    sandboxSat: testSandboxSat(),
    logger,
    now: () => clock.now,
    passwordCost: { memoryCost: 256, timeCost: 1 },
    anonymousRateLimit: 100_000,
    portalRateLimit: 100_000,
    registrationLimits: { perAddress: 100_000, total: 100_000 },
    stampBudgetMs: 300,
    sandboxSlowMs: 600,
    publicBaseUrl: 'http://localhost', // where the tests' requests go: receipts' links (PUBLIC_BASE_URL)
    ...overrides,
  });
  await app.ready;

  /**
   * Any request, as sent: for what the OpenAPI document does not describe (invalid bodies, unknown paths, raw
   * bytes). `address`: the client address the gateway sees, as Bun.serve would report it (default: none known).
   */
  async function call(method: string, path: string, opts: CallOptions = {}): Promise<Answer> {
    const server = opts.address === undefined ? undefined : { requestIP: () => ({ address: opts.address, family: 'IPv4', port: 40000 }) };
    return answer(await app.request(apiPath(path), requestInit(method, opts), server));
  }

  return {
    app,
    db,
    clock,
    call,
    api: typedApi(call),
    query: <T = Record<string, unknown>>(statement: SQL) => query<T>(db, statement),
    exec: (statement: SQL) => exec(db, statement),
    count: (table: SQLiteTable, where?: SQL) => count(db, table, where),
  };
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;

// --- The database ---------------------------------------------------------------------------------------------
// Tests read and arrange rows in the SQL SQLite and PostgreSQL both accept: Drizzle's `sql` with values as ${…}, no
// `?` placeholders, no engine-only functions (JSON is compared in JS), tables by their key (no rowid).

/** The rows one statement returns. */
export async function query<T = Record<string, unknown>>(db: DbOrTx, statement: SQL): Promise<T[]> {
  return (await executeSql(db, statement)) as T[];
}

/** Runs one statement that returns no rows. */
export async function exec(db: DbOrTx, statement: SQL): Promise<void> {
  await executeSql(db, statement);
}

/** How many rows of `table` match `where` (all of them without it), as a number on either engine. */
export function count(db: Db, table: SQLiteTable, where?: SQL): Promise<number> {
  return db.$count(table, where);
}

/** Closes the database, for a test that reopens it elsewhere (another process, a worker). */
export { closeDatabase } from '../src/db/index.ts';

/** The SQLite connection under a database: only for tests about SQLite itself (pragmas, its files, its catalog). */
export function sqliteConnection(db: Db): Database.Database {
  const sqlite = sqliteOf(db);
  if (!sqlite) throw new Error('a SQLite-only test ran on another engine');
  return sqlite;
}

// --- Requests -------------------------------------------------------------------------------------------------

interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: string | FormData;
  address?: string;
}

/** An answer as a test reads it: `json` is the parsed body (undefined when it is not JSON). */
interface Answer {
  status: number;
  headers: Headers;
  json: any;
  text: string;
}

type Call = (method: string, path: string, opts?: CallOptions) => Promise<Answer>;

/** Paths are written without /api/v1, the prefix of every API path. */
/** API paths may leave out /api/v1; the portal's are outside it. */
const apiPath = (path: string) => (path.startsWith('/api/') || path.startsWith('/portal/') ? path : `/api/v1${path}`);

function requestInit(method: string, opts: CallOptions): RequestInit {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | FormData | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  return { method, headers, body };
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type ApiPath = Extract<keyof paths, `/api/v1/${string}`>;
/** A documented path as a test writes it: without /api/v1, each {parameter} any text (`/cfdis/${id}/pdf`). */
type Written<P> = P extends `/api/v1${infer Rest}` ? Holes<Rest> : never;
type Holes<S extends string> = S extends `${infer Head}{${string}}${infer Tail}` ? `${Head}${string}${Holes<Tail>}` : S;
type PathsFor<M extends Method> = Extract<ApiPath, PathsWith<Lowercase<M>>>;
/** What `api` accepts for method M: a documented path, with a query string or not. */
type PathArgument<M extends Method> = Written<PathsFor<M>> | `${Written<PathsFor<M>>}?${string}`;
type WithoutQuery<S extends string> = S extends `${infer Path}?${string}` ? Path : S;
type Candidates<S extends string, M extends Method> = { [P in PathsFor<M>]: WithoutQuery<S> extends Written<P> ? P : never }[PathsFor<M>];
/** True when P's pattern is narrower than every other candidate's (`/cfdis/{id}/pdf` rather than `/cfdis/{id}`). */
type NarrowerThanAll<P, Others> = [Others extends unknown ? (Written<P> extends Written<Others> ? never : 0) : never] extends [never] ? true : false;
type Narrowest<C extends string> = { [P in C]: NarrowerThanAll<P, Exclude<C, P>> extends true ? P : never }[C];
/** The operation a method and a written path reach. */
type OperationOf<M extends Method, S extends string> = paths[Narrowest<Candidates<S, M>>][Lowercase<M>];

type Responses<O> = O extends { responses: infer R } ? R : never;
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;
/** One member per documented status, so that checking `status` narrows `json` to that status's body. */
type Reply<O> = { [S in keyof Responses<O>]: { status: S; headers: Headers; json: JsonOf<Responses<O>[S]>; text: string } }[keyof Responses<O>];
type JsonBodyOf<O> = O extends { requestBody?: infer B }
  ? [NonNullable<B>] extends [never]
    ? never
    : NonNullable<B> extends { content: { 'application/json': infer J } }
      ? J
      : never
  : never;

interface ApiOptions<O> {
  token?: string;
  /** The JSON body the document declares for the operation. */
  body?: JsonBodyOf<O>;
  /** A multipart body (CSD upload, logo). */
  form?: FormData;
  headers?: Record<string, string>;
  address?: string;
}

/** A request to a documented operation, typed from the generated client (clients/typescript/src/schema.d.ts). */
export type Api = <M extends Method, S extends PathArgument<M>>(method: M, path: S, opts?: ApiOptions<OperationOf<M, S>>) => Promise<Reply<OperationOf<M, S>>>;

function typedApi(call: Call): Api {
  return async (method, path, opts = {}): Promise<any> =>
    call(method, path, { token: opts.token, body: opts.body, raw: opts.form, headers: opts.headers, address: opts.address });
}

/** The answer if it has `status` (its body typed for that status); any other status throws with what came back. */
export function expectStatus<R extends { status: unknown; text: string }, const S extends R['status']>(res: R, status: S): Extract<R, { status: S }> {
  if (res.status !== status) throw new Error(`expected ${String(status)}, got ${String(res.status)}: ${res.text.slice(0, 500)}`);
  return res as Extract<R, { status: S }>;
}

/** The service on a real port (tests/process): `base` ends in /api/v1. */
export function serverTarget(base: string): IssuerTarget {
  const origin = base.replace(/\/api\/v1$/, '');
  return { api: typedApi(async (method, path, opts = {}) => answer(await fetch(`${origin}${apiPath(path)}`, requestInit(method, opts)))) };
}

// --- Issuers --------------------------------------------------------------------------------------------------

/** Tenants whose RFC matches a SAT test CSD. */
export const TENANTS = {
  EKU: TENANT,
  FUNK: { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '612', codigo_postal: '01000' },
  ONO: { rfc: 'OÑO120726RX3', nombre: 'ORGANICOS ÑAVEZ OSORIO', regimen_fiscal: '601', codigo_postal: '01000' },
  AAA: { rfc: 'AAA010101AAA', nombre: 'ACCEM SERVICIOS EMPRESARIALES', regimen_fiscal: '601', codigo_postal: '01000' },
};

/** The SAT test CSD of each RFC that has a valid one (tests/fixtures/csd). */
const CSD_OF: Record<string, [folder: string, base: string]> = {
  EKU9003173C9: ['EKU9003173C9_CSD', 'EKU9003173C9'],
  FUNK671228PH6: ['FUNK671228PH6_CSD', 'FUNK671228PH6'],
  OÑO120726RX3: ['ONO120726RX3_CSD', 'ONO120726RX3'],
};

/** SAT refuses its test CSDs in live: there, a CSD of EKU9003173C9 from a made-up authority (tests/fixtures/csd/EKU9003173C9_live). */
const LIVE_CSD_OF: Record<string, [folder: string, base: string]> = {
  EKU9003173C9: ['EKU9003173C9_live', 'EKU9003173C9'],
};

type Environment = 'test' | 'live';
type Role = 'ADMIN' | 'OPERATOR' | 'VIEWER';

/** Where an issuer is made: an in-process app (`createTestApp`), or a running server (`serverTarget`). */
export interface IssuerTarget {
  api: Api;
  /** The app's database, for what only the operator does (a plan); a running server has its own. */
  db?: TestApp['db'];
}

export interface IssuerOptions {
  /** The tenant's fiscal data over TENANT (EKU9003173C9); TENANTS has the RFCs with a SAT test CSD. */
  tenant?: Partial<typeof TENANT>;
  /** The ADMIN's email (default: a new one each call). */
  email?: string;
  /** A plan other than the starter plan a sign-up gets (see `Issuer.setPlan`). */
  plan?: Plan;
  /** The enterprise plan's own limit. */
  requestsPerMinute?: number;
  /** API keys to make, named ERP, in this order: `key` (sk_test_) and `live` (sk_live_). */
  keys?: Environment[];
  /** Upload the tenant's CSD in these environments (true: test), each with its key from `keys`: SAT's test CSD in test, LIVE_CSD_OF's in live. */
  csd?: true | Environment[];
}

export interface Issuer {
  tenant: RegisterResponse['tenant'];
  user: RegisterResponse['user'];
  email: string;
  password: string;
  /** The ADMIN's access token. */
  token: string;
  refreshToken: string;
  /** The sk_test_ key made by `keys: ['test']`; reading it otherwise throws. */
  key: string;
  /** The sk_live_ key made by `keys: ['live']`; reading it otherwise throws. */
  live: string;
  /** Requests as this issuer: with `key` when there is one, else the ADMIN's token (`opts.token` overrides). */
  api: Api;
  createKey(environment?: Environment, name?: string): Promise<{ id: string; key: string }>;
  /** A user with `role` in this tenant, logged in. */
  userWithRole(role: Role): Promise<{ id: string; email: string; password: string; token: string }>;
  /**
   * The tenant's plan, written by the service the operator's `set-plan` command calls (setTenantPlan), then applied
   * at once: PATCH /tenants/me is an identity write, on which the API drops the tenant and credential caches it
   * keeps (otherwise up to 10 s).
   */
  setPlan(plan: Plan, requestsPerMinute?: number | null): Promise<void>;
}

type RegisterResponse = components['schemas']['RegisterResponse'];

let seq = 0;

/** An API key made with an ADMIN's `token`. */
export async function createKey(target: IssuerTarget, token: string, environment: Environment = 'test', name = 'ERP') {
  return expectStatus(await target.api('POST', '/api-keys', { token, body: { name, environment } }), 201).json;
}

/** A user with `role` in the tenant of the ADMIN whose token this is, logged in. */
export async function userWithRole(target: IssuerTarget, adminToken: string, role: Role) {
  const email = `${role.toLowerCase()}${++seq}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const password = 'another-long-password';
  const created = expectStatus(await target.api('POST', '/users', { token: adminToken, body: { email, password, nombre: `User ${role}`, role } }), 201).json;
  const login = expectStatus(await target.api('POST', '/auth/login', { body: { email, password } }), 200).json;
  return { id: created.id, email, password, token: login.access_token };
}

/** A tenant and its ADMIN, registered through the API; then, as asked, its plan, API keys and SAT test CSD. */
export async function issuer(target: IssuerTarget, options: IssuerOptions = {}): Promise<Issuer> {
  const { api } = target;
  const email = options.email ?? `admin${++seq}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const password = 'a-long-password-1';
  const tenant = { ...TENANT, ...options.tenant };
  const registered = expectStatus(await api('POST', '/auth/register', { body: { email, password, nombre: 'Admin Uno', tenant } }), 201).json;
  const token = registered.access_token;

  const keys: Partial<Record<Environment, string>> = {};
  const credential = (environment: Environment) => {
    const key = keys[environment];
    if (key === undefined) throw new Error(`this issuer has no ${environment} API key: ask for it with keys: ['${environment}']`);
    return key;
  };
  const made: Issuer = {
    tenant: registered.tenant,
    user: registered.user,
    email,
    password,
    token,
    refreshToken: registered.refresh_token,
    get key() {
      return credential('test');
    },
    get live() {
      return credential('live');
    },
    // The issuer's credential by default; forwarded untyped (the caller's `api` is typed already), as checking the
    // forwarded call again makes a union of every documented path TypeScript cannot represent.
    api: ((method: Method, path: string, opts: ApiOptions<never> = {}) =>
      (api as (m: Method, p: string, o: ApiOptions<never>) => Promise<unknown>)(method, path, { ...opts, token: opts.token ?? keys.test ?? token })) as Api,
    createKey: (environment, name) => createKey(target, token, environment, name),
    userWithRole: (role) => userWithRole(target, token, role),
    async setPlan(plan, requestsPerMinute) {
      if (!target.db) throw new Error('a running server takes a plan from the set-plan command on its DATA_DIR (runCli)');
      // What the operator's set-plan command does, then a profile write: the product's own path to drop the caches.
      if (!(await setTenantPlan(target.db, registered.tenant.id, plan, requestsPerMinute ?? null, new Date()))) throw new Error('no such tenant');
      expectStatus(await api('PATCH', '/tenants/me', { token, body: {} }), 200);
    },
  };

  if (options.plan) await made.setPlan(options.plan, options.requestsPerMinute);
  for (const environment of options.keys ?? []) keys[environment] = (await made.createKey(environment)).key;
  for (const environment of options.csd === true ? ['test' as const] : (options.csd ?? [])) {
    const fixture = (environment === 'live' ? LIVE_CSD_OF : CSD_OF)[tenant.rfc];
    if (!fixture) throw new Error(`no ${environment} CSD fixture for ${tenant.rfc}`);
    expectStatus(await api('POST', '/csds', { token: credential(environment), form: csdForm(csdFiles(...fixture)) }), 201);
  }
  return made;
}

/** An issuer ready to stamp in the sandbox: its test key and CSD, on a plan whose rate limit no test reaches. */
export const READY: IssuerOptions = { plan: 'enterprise', requestsPerMinute: 1_000_000, keys: ['test'], csd: true };

/** SAT test CSDs (tests/fixtures/csd; provenance in tests/fixtures/sat/PROVENANCE.md). */
const CSD_FIXTURES = join(import.meta.dir, 'fixtures', 'csd');
/** A webhook receiver on a free loopback port that keeps every event body it gets; stop it in afterAll. */
export function eventReceiver() {
  const received: { event: string; data: any }[] = [];
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      received.push(await req.json());
      return new Response('ok');
    },
  });
  return { received, port: server.port, stop: () => server.stop(true) };
}

/** How an SMTP sink answers a message's DATA: accept it, or refuse it with this reply. */
export type SmtpAnswer = 'accept' | { code: number; message: string };

/**
 * A real SMTP server on a free loopback port (smtp-server) that keeps every message it accepts, parsed (mailparser),
 * and answers each message's DATA as `answers` says, in order (past the end: accept), `delayMs` after reading it (a
 * slow server). `smtp` is what the app takes; its URL carries credentials, which the sink records. Close it in afterAll.
 */
export async function smtpSink(answers: SmtpAnswer[] = [], o: { delayMs?: number } = {}) {
  const received: ParsedMail[] = [];
  const logins: string[] = [];
  let attempts = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, done) {
      logins.push(`${auth.username}:${auth.password}`);
      done(null, { user: auth.username });
    },
    onData(stream, _session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        if (o.delayMs) await new Promise((resolve) => setTimeout(resolve, o.delayMs));
        const answer = answers[attempts++] ?? 'accept';
        if (answer !== 'accept') return done(Object.assign(new Error(answer.message), { responseCode: answer.code }));
        received.push(await simpleParser(Buffer.concat(chunks)));
        done(null, 'Ok: queued as SINK1');
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    smtp: { url: `smtp://sink-user:sink%20pass@127.0.0.1:${port}`, from: 'Facturación <facturas@example.com>' },
    received,
    logins,
    /** Messages whose DATA it answered, accepted or not. */
    attempts: () => attempts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const csdFiles = (folder: string, base: string) => ({
  cer: readFileSync(join(CSD_FIXTURES, folder, `${base}.cer`)),
  key: readFileSync(join(CSD_FIXTURES, folder, `${base}.key`)),
  password: readFileSync(join(CSD_FIXTURES, folder, 'password.txt'), 'utf8'),
});

export function csdForm(files: { cer?: Buffer | string; key?: Buffer | string; password?: string }) {
  const form = new FormData();
  if (files.cer !== undefined) form.append('cer', new Blob([typeof files.cer === 'string' ? files.cer : new Uint8Array(files.cer)]), 'cert.cer');
  if (files.key !== undefined) form.append('key', new Blob([typeof files.key === 'string' ? files.key : new Uint8Array(files.key)]), 'key.key');
  if (files.password !== undefined) form.append('password', files.password);
  return form;
}

/**
 * A full disk without filling the real one: caps the test database at its current size (SQLite's max_page_count)
 * and fills the room left in its pages, including the jobs table's, so a write that needs room fails with
 * SQLITE_FULL. Returns what frees it again.
 */
/**
 * Makes the database's storage full; the function it returns frees it. SQLite: its page limit, reached for real.
 * PostgreSQL (whose disk the test cannot fill): every write fails as the server's does on a full disk, disk_full 53100.
 */
export async function fillDatabase(db: TestApp['db']): Promise<() => Promise<void>> {
  if (TEST_ENGINE === 'postgres') return refuseWrites(db);
  const sqlite = sqliteConnection(db);
  sqlite.exec('create table disk_filler (b blob)');
  sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true })}`);
  const fill = (insert: { run(size: number): unknown }) => {
    for (const size of [4000, 400, 40, 4, 0]) {
      try {
        for (;;) insert.run(size);
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_FULL') throw err;
      }
    }
  };
  fill(sqlite.prepare('insert into disk_filler values (zeroblob(?))'));
  fill(
    sqlite.prepare(
      "insert into jobs (id, type, payload, status, run_at) values ('filler_' || hex(randomblob(8)), 'filler', hex(zeroblob(?)), 'done', '2000-01-01')",
    ),
  );
  // The last row shares the page of the jobs that are there: grown to the byte, it leaves no room for them to grow.
  const grow = sqlite.prepare('update jobs set last_error = zeroblob(?) where rowid = (select max(rowid) from jobs)');
  let [lo, hi] = [0, 4096];
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    try {
      grow.run(mid);
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  grow.run(lo);
  return async () => {
    sqlite.pragma('max_page_count = 1073741823');
    sqlite.exec("drop table disk_filler; delete from jobs where type = 'filler'");
  };
}

async function refuseWrites(db: Db): Promise<() => Promise<void>> {
  await exec(
    db,
    sql.raw(`create function test_disk_full() returns trigger language plpgsql as
      $$ begin raise exception 'could not extend file: No space left on device' using errcode = '53100'; end $$`),
  );
  const tables = await query<{ name: string }>(db, sql`select tablename as name from pg_tables where schemaname = 'public'`);
  for (const { name } of tables) {
    await exec(db, sql.raw(`create trigger test_disk_full before insert or update on "${name}" for each statement execute function test_disk_full()`));
  }
  return async () => {
    for (const { name } of tables) await exec(db, sql.raw(`drop trigger test_disk_full on "${name}"`));
    await exec(db, sql.raw('drop function test_disk_full()'));
  };
}

/**
 * Waits until `done()` holds, asking every 5 ms, for work started asynchronously; throws naming `what` after `ms`.
 * Never a fixed sleep before an assertion: a loaded machine (a second suite beside this one) takes longer.
 */
export async function until(done: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
    await Bun.sleep(5);
  }
}
