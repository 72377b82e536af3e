import { createApp, type AppDeps } from '../src/app.ts';
import { coordinationFor } from '../src/topology/one-database.ts';
import { forgetTenant } from '../src/auth/tenants/lookup.ts';
import type { Db } from '../src/db/index.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createSandboxSat } from '../src/pac/sandbox.ts';
import { sql } from 'drizzle-orm';
import { exec } from '../tests/helpers.ts';

type App = { request(path: string, init?: RequestInit): Response | Promise<Response> };

/**
 * The EKU9003173C9 test tenant set up through the API for a benchmark: registered, an API key of `environment`,
 * the plan raised so the rate limit never interferes, its CSD uploaded. Returns the key.
 */
export async function benchTenant(app: App, db: Db, environment: 'test' | 'live', email = 'bench-tenant@example.com'): Promise<string> {
  const post = async (path: string, body: unknown, token?: string) => {
    const res = await app.request(`/api/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as any;
  };
  const reg = await post('/auth/register', {
    email,
    password: 'bench-password-1',
    nombre: 'Bench',
    tenant: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', codigo_postal: '42501' },
  });
  const key = (await post('/api-keys', { name: 'bench', environment }, reg.access_token)).key as string;
  await exec(db, sql`update tenants set plan = 'enterprise', rate_limit_per_minute = 100000000 where id = ${reg.tenant.id}`);
  forgetTenant(db, reg.tenant.id);
  // Live refuses SAT's test CSDs: there, the tests' CSD of a made-up authority (tests/fixtures/csd/EKU9003173C9_live).
  const csdDir = new URL(`../tests/fixtures/csd/EKU9003173C9_${environment === 'live' ? 'live' : 'CSD'}/`, import.meta.url).pathname;
  const form = new FormData();
  form.append('cer', new Blob([await Bun.file(`${csdDir}EKU9003173C9.cer`).arrayBuffer()]));
  form.append('key', new Blob([await Bun.file(`${csdDir}EKU9003173C9.key`).arrayBuffer()]));
  form.append('password', '12345678a');
  const csd = await app.request('/api/v1/csds', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  if (csd.status !== 201) throw new Error(`CSD upload: ${csd.status} ${await csd.text()}`);
  return key;
}

/** The whole app in process on `db`, as the benchmarks run it: silent, cheap password hashing, no anonymous limit. */
export function benchApp(db: Db, deps: Partial<AppDeps> = {}) {
  return createApp({
    db,
    jwtSecret: 'bench-secret-bench-secret-bench-secret-0123',
    masterKey: Buffer.alloc(32, 1),
    sandboxSat: createSandboxSat(),
    logger: createLogger('silent'),
    coordination: coordinationFor(db, { heartbeat: { lastTickAt: () => Date.now(), intervalMs: 5000 } }),
    passwordCost: { memoryCost: 256, timeCost: 1 },
    anonymousRateLimit: 1e9,
    ...deps,
  });
}
