import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, type AppDeps } from '../src/app.ts';
import { openDatabase } from '../src/db/client.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createSandboxSat, type SandboxSat } from '../src/pac/sandbox.ts';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-0123456789';
export const TEST_MASTER_KEY = Buffer.alloc(32, 7);

let sandboxSat: SandboxSat | undefined;
/** One sandbox stamping identity per test process (generating an RSA key costs ~100 ms). */
export const testSandboxSat = (): SandboxSat => (sandboxSat ??= createSandboxSat());

/** EKU9003173C9 is SAT's test taxpayer (persona moral, its CSD is in the SAT test material). */
export const TENANT = { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', codigo_postal: '42501' };

interface TestClock {
  now: Date;
  advance(ms: number): void;
}

/** A fresh app on a fresh in-memory database migrated with the real migrations. */
export function createTestApp(overrides: Partial<AppDeps> = {}) {
  const db = openDatabase(':memory:');
  const clock: TestClock = {
    now: new Date(),
    advance(ms) {
      this.now = new Date(this.now.getTime() + ms);
    },
  };
  const app = createApp({
    db,
    jwtSecret: TEST_JWT_SECRET,
    masterKey: TEST_MASTER_KEY,
    sandboxSat: testSandboxSat(),
    logger: createLogger('silent'),
    heartbeat: { lastTickAt: () => clock.now.getTime(), intervalMs: 5000 },
    now: () => clock.now,
    passwordCost: { memoryCost: 256, timeCost: 1 },
    anonymousRateLimit: 100_000,
    registrationLimits: { perAddress: 100_000, total: 100_000 },
    stampBudgetMs: 300,
    sandboxSlowMs: 600,
    ...overrides,
  });

  /** `address`: the client address the gateway sees, as Bun.serve would report it (default: none known). */
  async function call(method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: string | FormData; address?: string } = {}) {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | FormData | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const server = opts.address === undefined ? undefined : { requestIP: () => ({ address: opts.address, family: 'IPv4', port: 40000 }) };
    const res = await app.request(path.startsWith('/api/') ? path : `/api/v1${path}`, { method, headers, body }, server);
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  }

  let seq = 0;
  /** Registers a tenant with its ADMIN; returns the tokens and what was sent. */
  async function register(over: { email?: string; tenant?: Partial<typeof TENANT> } = {}) {
    const email = over.email ?? `admin${++seq}-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const password = 'a-long-password-1';
    const res = await call('POST', '/auth/register', {
      body: { email, password, nombre: 'Admin Uno', tenant: { ...TENANT, ...over.tenant } },
    });
    if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
    return {
      email,
      password,
      token: res.json.access_token as string,
      refreshToken: res.json.refresh_token as string,
      tenant: res.json.tenant,
      user: res.json.user,
    };
  }

  async function createKey(token: string, environment: 'test' | 'live' = 'test', name = 'ERP') {
    const res = await call('POST', '/api-keys', { token, body: { name, environment } });
    if (res.status !== 201) throw new Error(`api key failed: ${res.status} ${res.text}`);
    return res.json as { id: string; key: string };
  }

  /** Creates a user with `role` in the admin's tenant and logs them in. */
  async function userWithRole(adminToken: string, role: 'ADMIN' | 'OPERATOR' | 'VIEWER') {
    const email = `${role.toLowerCase()}${++seq}-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const password = 'another-long-password';
    const created = await call('POST', '/users', { token: adminToken, body: { email, password, nombre: `User ${role}`, role } });
    if (created.status !== 201) throw new Error(`user failed: ${created.status} ${created.text}`);
    const login = await call('POST', '/auth/login', { body: { email, password } });
    return { id: created.json.id as string, email, password, token: login.json.access_token as string };
  }

  /**
   * A ready issuer: the EKU9003173C9 test tenant registered (a new one each call), its plan raised so rate limits
   * never interfere, a sandbox API key, and its test CSD uploaded. Returns the key.
   */
  async function issuerKey(): Promise<string> {
    const reg = await register({ tenant: TENANTS.EKU });
    db.$client.prepare("update tenants set plan = 'enterprise', rate_limit_per_minute = 1000000 where id = ?").run(reg.tenant.id);
    clock.advance(11_000); // past the tenant lookup cache, so the new plan applies
    const key = (await createKey(reg.token)).key;
    const csd = await app.request('/api/v1/csds', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: csdForm(csdFiles('EKU9003173C9_CSD', 'EKU9003173C9')) });
    if (csd.status !== 201) throw new Error(`CSD upload failed: ${csd.status} ${await csd.text()}`);
    return key;
  }

  return { app, db, clock, call, register, createKey, userWithRole, issuerKey };
}

export type TestApp = ReturnType<typeof createTestApp>;

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


/** Tenants whose RFC matches a SAT test CSD. */
export const TENANTS = {
  EKU: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', codigo_postal: '42501' },
  FUNK: { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '612', codigo_postal: '01000' },
  ONO: { rfc: 'OÑO120726RX3', nombre: 'ORGANICOS ÑAVEZ OSORIO', regimen_fiscal: '601', codigo_postal: '01000' },
  AAA: { rfc: 'AAA010101AAA', nombre: 'ACCEM SERVICIOS EMPRESARIALES', regimen_fiscal: '601', codigo_postal: '01000' },
};


/**
 * A full disk without filling the real one: caps the test database at its current size (SQLite's max_page_count)
 * and fills the room left in its pages, including the jobs table's, so a write that needs room fails with
 * SQLITE_FULL. Returns what frees it again.
 */
export function fillDatabase(db: TestApp['db']): () => void {
  const sqlite = db.$client;
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
  fill(sqlite.prepare("insert into jobs (id, type, payload, status, run_at) values ('filler_' || hex(randomblob(8)), 'filler', hex(zeroblob(?)), 'done', '2000-01-01')"));
  // The last row shares the page of the jobs that are there: grown to the byte, it leaves no room for them to grow.
  const grow = sqlite.prepare("update jobs set last_error = zeroblob(?) where rowid = (select max(rowid) from jobs)");
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
  return () => {
    sqlite.pragma('max_page_count = 1073741823');
    sqlite.exec("drop table disk_filler; delete from jobs where type = 'filler'");
  };
}
