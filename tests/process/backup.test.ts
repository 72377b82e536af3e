import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli.ts';
import { DEMO_INVOICE } from '../../src/demo.ts';
import { issuer, serverTarget, TEST_ENGINE } from '../helpers.ts';
import { post, startServer, stopServer } from './server.ts';

/**
 * Acceptance (issue 11): a backup taken under write load restores to a database that passes integrity_check and
 * holds every invoice acknowledged before the backup started. `npm run backup` is `bun src/cli.ts backup`.
 */
const work = mkdtempSync(join(tmpdir(), 'cfdi-backup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const dir = (name: string) => {
  const d = join(work, name);
  mkdirSync(d, { recursive: true });
  return d;
};

// SQLite-only: the backup is SQLite's online backup of the database file, checked by opening the copy.
// SQLite only: npm run backup copies the SQLite file (on PostgreSQL, its own tools: README "Scale out").
describe.skipIf(TEST_ENGINE !== 'sqlite')('backup and restore', () => {
  test('a backup under write load restores with every invoice acknowledged before it started; refusals change nothing', async () => {
    const live = dir('live');
    const setup = await startServer(live);
    const { tenant, key } = await issuer(serverTarget(setup.base), { email: 'backup@example.com', keys: ['test'], csd: true });
    await stopServer(setup.proc);
    expect((await runCli(['set-plan', tenant.id, 'enterprise', '100000'], { DATA_DIR: live })).code).toBe(0);

    const server = await startServer(live);
    const acked: string[] = [];
    const failures: string[] = [];
    let writing = true;
    const writer = async () => {
      while (writing) {
        const res = await post(server.base, '/cfdis', DEMO_INVOICE, key);
        if (res.status === 201) acked.push(((await res.json()) as any).id);
        else failures.push(`${res.status} ${await res.text()}`);
      }
    };
    const writers = [writer(), writer(), writer()];
    let backup: { exit: number; out: string; err: string };
    let ackedBefore: string[];
    const file = join(work, 'cfdi-backup.sqlite');
    try {
      while (acked.length < 30) await Bun.sleep(20);
      ackedBefore = [...acked];
      // Exactly what `npm run backup -- <file>` runs, as its own process, while the writers go on.
      const proc = Bun.spawn([process.execPath, 'src/cli.ts', 'backup', file], { env: { ...process.env, DATA_DIR: live }, stdout: 'pipe', stderr: 'pipe' });
      const [exit, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      backup = { exit, out, err };
      const afterBackup = acked.length;
      while (acked.length < afterBackup + 10) await Bun.sleep(20); // still writing after it
      // The service is running: a restore over its database is refused and changes nothing.
      const refused = await runCli(['restore', file], { DATA_DIR: live });
      expect(refused.code).toBe(1);
      expect(refused.out).toContain('is the service running');
    } finally {
      writing = false;
      await Promise.all(writers);
      await stopServer(server.proc);
    }
    expect(failures).toEqual([]);
    expect(backup.err).toBe('');
    expect(backup.exit).toBe(0);
    const summary = JSON.parse(backup.out.split('\n')[0]!);
    expect(summary).toMatchObject({ file, integrity: 'ok', tenants: 1 });
    expect(summary.cfdis).toBeGreaterThanOrEqual(ackedBefore.length);
    expect(summary.cfdis).toBeLessThan(acked.length); // taken mid-load: some later invoices are not in it
    expect(backup.out).toContain('MASTER_KEY');
    // Business data only: the SAT catalogs (80 MB) stay in DATA_DIR/catalogs.sqlite, rebuilt at start.
    expect(summary.bytes).toBeLessThan(4 * 1024 * 1024);
    const copy = new Database(file, { readonly: true });
    try {
      expect(copy.query('select count(*) as n from catalog_entries').get()).toEqual({ n: 0 });
      expect(copy.query('select count(*) as n from catalog_search').get()).toEqual({ n: 0 });
    } finally {
      copy.close();
    }
    expect(readdirSync(work).filter((f) => f.startsWith('cfdi-backup'))).toEqual(['cfdi-backup.sqlite']); // no .partial, -wal or -shm
    // Never overwrites.
    const again = await runCli(['backup', file], { DATA_DIR: live });
    expect(again.code).toBe(1);
    expect(again.out).toContain('exists');

    // Another machine without the master key: refused, nothing replaced.
    const stranger = dir('stranger');
    const wrongKey = await runCli(['restore', file], { DATA_DIR: stranger });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.out).toContain('MASTER_KEY');
    expect(existsSync(join(stranger, 'cfdi.sqlite'))).toBe(false);

    // The documented restore: the secrets of DATA_DIR go with the backup; the service is stopped.
    const restored = dir('restored');
    for (const secret of ['master-key', 'jwt-secret']) copyFileSync(join(live, secret), join(restored, secret));
    const done = await runCli(['restore', file], { DATA_DIR: restored });
    expect(done.code).toBe(0);
    expect(JSON.parse(done.out.split('\n')[0]!)).toMatchObject({ restored: join(restored, 'cfdi.sqlite'), previous: null, tenants: 1, cfdis: summary.cfdis });

    const back = await startServer(restored);
    try {
      for (const id of ackedBefore) {
        const res = await fetch(`${back.base}/cfdis/${id}`, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status).toBe(200);
        expect(((await res.json()) as any).status).toBe('vigente');
      }
      const xml = await fetch(`${back.base}/cfdis/${ackedBefore[0]}/xml`, { headers: { authorization: `Bearer ${key}` } });
      expect(xml.status).toBe(200);
      // The restored service issues on: the CSD key opens with the master key that came along.
      expect((await post(back.base, '/cfdis', DEMO_INVOICE, key)).status).toBe(201);
      // Its catalogs were rebuilt at start, beside the restored database: the search finds SAT's keys.
      const search = await fetch(`${back.base}/catalogos/productos-servicios?q=servicios%20educativos`, { headers: { authorization: `Bearer ${key}` } });
      expect(search.status).toBe(200);
      expect(((await search.json()) as any).data.length).toBeGreaterThan(0);
    } finally {
      await stopServer(back.proc);
    }
    const db = new Database(join(restored, 'cfdi.sqlite'), { readonly: true });
    try {
      expect(db.query('pragma integrity_check').get()).toEqual({ integrity_check: 'ok' });
      expect((db.query('select count(*) as n from cfdis').get() as { n: number }).n).toBe(summary.cfdis + 1);
    } finally {
      db.close();
    }

    // Restoring over an existing (stopped) database keeps the old one beside it.
    const over = await runCli(['restore', file], { DATA_DIR: restored });
    expect(over.out).not.toContain('refused');
    expect(over.code).toBe(0);
    const previous = JSON.parse(over.out.split('\n')[0]!).previous as string;
    expect(previous).toStartWith(join(restored, 'cfdi.sqlite.before-restore-'));
    expect(readdirSync(restored)).toContain(previous.split('/').pop()!);
  }, 60_000);
});
