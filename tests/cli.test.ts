import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../src/cli.ts';
import { openDatabase } from '../src/db/client.ts';
import { createTestApp, exec, issuer, query } from './helpers.ts';
import { sql } from 'drizzle-orm';

describe('cli set-plan', () => {
  test('changes a tenant plan on the DATA_DIR database; rejects bad arguments', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-cli-'));
    const env = { DATA_DIR: dataDir };
    const db = openDatabase(join(dataDir, 'cfdi.sqlite'));
    const { tenant } = await issuer(await createTestApp({ db }));
    expect((await runCli(['set-plan', tenant.id, 'enterprise', '5000'], env)).code).toBe(0);
    expect(await query(db, sql`select plan, rate_limit_per_minute r from tenants`)).toEqual([{ plan: 'enterprise', r: 5000 }]);
    expect((await runCli(['set-plan', tenant.id, 'pro'], env)).code).toBe(0);
    expect(await query(db, sql`select plan, rate_limit_per_minute r from tenants`)).toEqual([{ plan: 'pro', r: null }]);
    expect((await runCli(['set-plan', tenant.id, 'gold'], env)).code).toBe(2);
    expect((await runCli(['set-plan', tenant.id, 'enterprise', '10'], env)).code).toBe(2);
    expect((await runCli(['set-plan', 'ten_missing', 'pro'], env)).code).toBe(1);
    expect((await runCli(['nope'], env)).code).toBe(2);
    await exec(db, sql`insert into jobs (id, type, payload, status, run_at, last_error) values ('job_1', 'cfdi.stamp', '{}', 'failed', '2026-01-01', 'boom')`);
    const failed = await runCli(['jobs'], env);
    expect(failed.code).toBe(0);
    expect(JSON.parse(failed.out)).toMatchObject({ id: 'job_1', type: 'cfdi.stamp', last_error: 'boom' });
    expect((await runCli(['jobs', 'queued'], env)).out).toBe('no queued jobs');
    expect((await runCli(['jobs', 'weird'], env)).code).toBe(2);
  });
});
