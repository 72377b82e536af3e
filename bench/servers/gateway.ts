import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app.ts';
import { coordinationFor } from '../../src/topology/one-database.ts';
import { forgetTenant } from '../../src/auth/tenants/lookup.ts';
import { openDatabase } from '../../src/db/client.ts';
import { createScheduler } from '../../src/jobs/scheduler.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createSandboxSat } from '../../src/pac/sandbox.ts';
import { sql } from 'drizzle-orm';
import { exec } from '../../tests/helpers.ts';

// The real app on a real SQLite file, with request logging on (info) as in production; logs go to /dev/null.
const dir = mkdtempSync(join(tmpdir(), 'cfdi-bench-'));
const db = openDatabase(join(dir, 'bench.sqlite'));
const logger = createLogger('info');
const scheduler = createScheduler({ logger });
scheduler.start();
const app = createApp({
  db,
  jwtSecret: 'bench-secret-bench-secret-bench-secret-0123',
  masterKey: Buffer.alloc(32, 1),
  sandboxSat: createSandboxSat(),
  logger,
  coordination: coordinationFor(db, { heartbeat: scheduler }),
});

const json = (body: unknown, token?: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});
const reg = (await (
  await app.request(
    '/api/v1/auth/register',
    json({
      email: 'bench@example.com',
      password: 'bench-password-1',
      nombre: 'Bench',
      tenant: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', codigo_postal: '42501' },
    }),
  )
).json()) as any;
const key = (await (await app.request('/api/v1/api-keys', json({ name: 'bench' }, reg.access_token))).json()) as any;
// The benchmark measures throughput, not the plan's limit.
await exec(db, sql`update tenants set plan = 'enterprise', rate_limit_per_minute = 100000000`);
forgetTenant(db, reg.tenant.id);

const server = Bun.serve({ port: 0, fetch: app.fetch });
console.error(JSON.stringify({ ready: true, url: `http://127.0.0.1:${server.port}/api/v1/tenants/me`, key: key.key }));
