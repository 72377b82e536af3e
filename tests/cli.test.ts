import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../src/cli.ts';
import { openDatabase } from '../src/db/client.ts';

describe('cli set-plan', () => {
  test('changes a tenant plan on the DATA_DIR database; rejects bad arguments', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-cli-'));
    const env = { DATA_DIR: dataDir };
    const db = openDatabase(join(dataDir, 'cfdi.sqlite'));
    db.$client.prepare("insert into tenants (id, rfc, nombre, regimen_fiscal, codigo_postal) values ('ten_a', 'EKU9003173C9', 'E', '601', '42501')").run();
    expect((await runCli(['set-plan', 'ten_a', 'enterprise', '5000'], env)).code).toBe(0);
    expect(db.$client.prepare('select plan, rate_limit_per_minute r from tenants').get()).toEqual({ plan: 'enterprise', r: 5000 });
    expect((await runCli(['set-plan', 'ten_a', 'pro'], env)).code).toBe(0);
    expect(db.$client.prepare('select plan, rate_limit_per_minute r from tenants').get()).toEqual({ plan: 'pro', r: null });
    expect((await runCli(['set-plan', 'ten_a', 'gold'], env)).code).toBe(2);
    expect((await runCli(['set-plan', 'ten_a', 'enterprise', '10'], env)).code).toBe(2);
    expect((await runCli(['set-plan', 'ten_missing', 'pro'], env)).code).toBe(1);
    expect((await runCli(['nope'], env)).code).toBe(2);
    db.$client.prepare("insert into jobs (id, type, payload, status, run_at, last_error) values ('job_1', 'cfdi.stamp', '{}', 'failed', '2026-01-01', 'boom')").run();
    const failed = await runCli(['jobs'], env);
    expect(failed.code).toBe(0);
    expect(JSON.parse(failed.out)).toMatchObject({ id: 'job_1', type: 'cfdi.stamp', last_error: 'boom' });
    expect((await runCli(['jobs', 'queued'], env)).out).toBe('no queued jobs');
    expect((await runCli(['jobs', 'weird'], env)).code).toBe(2);
  });
});
