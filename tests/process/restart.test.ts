import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issuer, serverTarget, TEST_ENGINE } from '../helpers.ts';
import { json, startServer, stopServer as stop } from './server.ts';

/** The real entry point, on a real socket (PORT=0), twice on the same DATA_DIR. */
const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const start = (env: Record<string, string> = {}) => startServer(dataDir, env);

// SQLite only: a restart on the same DATA_DIR finds the secrets it generated there.
describe.skipIf(TEST_ENGINE !== 'sqlite')('the service process', () => {
  test('starts with no set-up, and after a restart on the same DATA_DIR tokens, keys and data still work', async () => {
    const first = await start();
    const health = await fetch(`${first.base}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as any).status).toBe('ok');

    const reg = await issuer(serverTarget(first.base), { email: 'restart@example.com', keys: ['test'] });
    expect(reg.key).toStartWith('sk_test_');
    await stop(first.proc);

    // Secrets were generated once, private to the owner.
    expect(statSync(join(dataDir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'master-key')).mode & 0o777).toBe(0o600);

    const second = await start();
    try {
      const byJwt = await fetch(`${second.base}/tenants/me`, json('GET', undefined, reg.token));
      expect(byJwt.status).toBe(200);
      expect(((await byJwt.json()) as any).id).toBe(reg.tenant.id);
      expect((await fetch(`${second.base}/tenants/me`, json('GET', undefined, reg.key))).status).toBe(200);
      const refreshed = await fetch(`${second.base}/auth/refresh`, json('POST', { refresh_token: reg.refreshToken }));
      expect(refreshed.status).toBe(200);
      const login = await fetch(`${second.base}/auth/login`, json('POST', { email: 'restart@example.com', password: 'a-long-password-1' }));
      expect(login.status).toBe(200);
    } finally {
      await stop(second.proc);
    }
  }, 30_000); // two server starts, the first one loading the SAT catalogs

  test('invalid configuration: exits at once naming the variable', async () => {
    for (const [name, value] of [
      ['PORT', 'abc'],
      ['LOG_LEVEL', 'loud'],
      ['JWT_SECRET', 'short'],
      ['MASTER_KEY', 'nothex'],
    ]) {
      const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
        env: { ...process.env, DATA_DIR: dataDir, [name!]: value! },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      expect(await proc.exited).toBe(1);
      expect(await new Response(proc.stderr).text()).toContain(name!);
    }
  }, 30_000); // four starts: about 1 s each alone, past 5 s beside another suite
});
