import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli.ts';
import { startServer, stopServer } from './server.ts';
import { TEST_ENGINE } from '../helpers.ts';

/** A first start as a new self-hoster sees it (issue 18, item 13): what it says, what it refuses, what it leaves on disk. */
const work = mkdtempSync(join(tmpdir(), 'cfdi-startup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;
const messages = (log: string) =>
  log
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: string; msg: string; files?: string[] });

// SQLite only: the embedded start: secrets generated into DATA_DIR, the SQLite file's mode.
describe.skipIf(TEST_ENGINE !== 'sqlite')('start-up', () => {
  test('a port in use: one line on stderr and exit 1, at once, before the catalogs load', async () => {
    const taken = Bun.serve({ port: 0, fetch: () => new Response('someone else') });
    try {
      const started = performance.now();
      const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
        env: { ...process.env, PORT: String(taken.port), DATA_DIR: join(work, 'busy'), LOG_LEVEL: 'info', JWT_SECRET: '', MASTER_KEY: '' },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      expect(await proc.exited).toBe(1);
      expect(await new Response(proc.stderr).text()).toBe(`port ${taken.port} is already in use (set PORT)\n`);
      expect(messages(await new Response(proc.stdout).text()).map((m) => m.msg)).not.toContain('SAT catalogs loaded');
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      taken.stop(true);
    }
  }, 20_000);

  test('PACS naming an unknown PAC: one line on stderr and exit 1; the legacy PAC_* names: one warning naming SW_*', async () => {
    const unknown = Bun.spawn([process.execPath, 'src/index.ts'], {
      env: { ...process.env, PORT: '0', DATA_DIR: join(work, 'pacs'), JWT_SECRET: '', MASTER_KEY: '', PACS: 'sw,quadrum' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    expect(await unknown.exited).toBe(1);
    expect(await new Response(unknown.stderr).text()).toBe('Invalid configuration: PACS: unknown PAC "quadrum" (known: sw, finkok)\n');
    // A taken port stops this start right after the warnings: the line is said before anything else happens.
    const taken = Bun.serve({ port: 0, fetch: () => new Response('someone else') });
    try {
      const legacy = Bun.spawn([process.execPath, 'src/index.ts'], {
        env: {
          ...process.env,
          PORT: String(taken.port),
          DATA_DIR: join(work, 'legacy'),
          LOG_LEVEL: 'info',
          JWT_SECRET: '',
          MASTER_KEY: '',
          PAC_URL: 'https://services.test.sw.com.mx',
          PAC_USER: 'u',
          PAC_PASSWORD: 'p',
        },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      expect(await legacy.exited).toBe(1);
      const warned = messages(await new Response(legacy.stdout).text()).filter((m) => m.level === 'warn' && m.msg.includes('PAC_URL'));
      expect(warned.map((m) => m.msg)).toEqual([
        'PAC_URL, PAC_USER and PAC_PASSWORD are legacy names: they still work, read as SW_URL, SW_USER and SW_PASSWORD; rename them (PACS lists the providers)',
      ]);
    } finally {
      taken.stop(true);
    }
  }, 20_000);

  test('first start: says which secrets it generated, shows progress while the catalogs load, keeps DATA_DIR and the database private', async () => {
    const dataDir = join(work, 'fresh', 'data'); // does not exist yet: the service creates it
    const first = await startServer(dataDir);
    try {
      const log = messages(first.startLog);
      const warned = log.find((m) => m.level === 'warn' && m.msg.startsWith('secrets generated'));
      expect(warned?.files).toEqual([join(dataDir, 'jwt-secret'), join(dataDir, 'master-key')]);
      const order = log.map((m) => m.msg);
      expect(order.findIndex((m) => m.startsWith('loading the SAT catalogs'))).toBeGreaterThanOrEqual(0);
      expect(order.findIndex((m) => m.startsWith('loading the SAT catalogs'))).toBeLessThan(order.indexOf('SAT catalogs loaded'));
      // Where the data and the catalogs are: on SQLite two files, the catalogs apart from what a backup copies.
      const listening = JSON.parse(first.startLog.split('\n').find((l) => l.includes('"msg":"listening"'))!);
      const file = `SQLite ${join(dataDir, 'cfdi.sqlite')}`;
      expect(listening).toMatchObject({ data_dir: dataDir, database: 'sqlite', database_at: file, catalogs: `SQLite ${join(dataDir, 'catalogs.sqlite')}` });

      expect(mode(dataDir)).toBe(0o700);
      for (const file of ['cfdi.sqlite', 'cfdi.sqlite-wal', 'cfdi.sqlite-shm', 'jwt-secret', 'master-key'])
        expect([file, mode(join(dataDir, file))]).toEqual([file, 0o600]);
      const backup = join(work, 'backup.sqlite');
      expect((await runCli(['backup', backup], { DATA_DIR: dataDir })).code).toBe(0);
      expect(mode(backup)).toBe(0o600);
    } finally {
      await stopServer(first.proc);
    }

    // The next start on the same DATA_DIR generates nothing and loads nothing.
    const second = await startServer(dataDir);
    try {
      const order = messages(second.startLog).map((m) => m.msg);
      expect(order.filter((m) => m.startsWith('secrets generated') || m.includes('SAT catalogs'))).toEqual([]);
    } finally {
      await stopServer(second.proc);
    }
  }, 60_000);

  test.skipIf(process.platform !== 'linux')(
    'HOST binds that address only (default: every interface)',
    async () => {
      const bound = await startServer(join(work, 'host'), { HOST: '127.0.0.2' }); // Linux routes all of 127/8 to loopback
      const port = new URL(bound.base).port;
      try {
        expect((await fetch(`http://127.0.0.2:${port}/api/v1/health`)).status).toBe(200);
        await expect(fetch(`http://127.0.0.1:${port}/api/v1/health`)).rejects.toThrow();
        // The container's HEALTHCHECK asks the service where HOST binds it.
        const healthcheck = (env: Record<string, string>) =>
          Bun.spawnSync([process.execPath, 'src/bin.ts', 'healthcheck'], { env: { ...process.env, PORT: port, ...env } }).exitCode;
        expect(healthcheck({ HOST: '127.0.0.2' })).toBe(0);
        expect(healthcheck({ HOST: '127.0.0.3' })).toBe(1);
      } finally {
        await stopServer(bound.proc);
      }
      const everywhere = await startServer(join(work, 'host'));
      try {
        for (const host of ['127.0.0.1', '127.0.0.2']) expect((await fetch(`http://${host}:${new URL(everywhere.base).port}/api/v1/health`)).status).toBe(200);
      } finally {
        await stopServer(everywhere.proc);
      }
    },
    40_000,
  );
});
