import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { VERSION } from '../../src/app.ts';
import { CATALOG_VERSION } from '../../src/catalogs/index.ts';
import { HELP } from '../../src/cli.ts';
import { compileExecutable, sqliteEntryFor } from '../../src/compile.ts';
import { DEMO_INVOICE } from '../../src/demo.ts';
import { issuer, serverTarget, TEST_ENGINE } from '../helpers.ts';
import { json, startServer, stopServer } from './server.ts';

/**
 * The single executable (`npm run build`), built here and run from an empty folder on an empty DATA_DIR: the
 * migrations, catalogs, fonts, /docs assets and the SQLite addon must all come from inside it.
 */
const REPO = resolve(import.meta.dir, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'cfdi-binary-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const UUID = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;

// SQLite only: the single executable runs on its embedded SQLite.
describe.skipIf(TEST_ENGINE !== 'sqlite')('the compiled executable', () => {
  test('starts on an empty DATA_DIR, stamps an invoice, renders its PDF, validates a received CFDI, serves /docs and the catalogs, and stops cleanly', async () => {
    const exe = await compileExecutable({ outfile: join(work, 'bin', 'cfdi-api') });
    // Nothing in it points back into this checkout (where node_modules, drizzle/ and the CSVs happen to exist).
    expect(Buffer.from(await Bun.file(exe).arrayBuffer()).includes(REPO)).toBe(false);
    const dataDir = join(work, 'data');
    const elsewhere = join(work, 'cwd');
    mkdirSync(elsewhere);
    mkdirSync(dataDir);
    const server = await startServer(dataDir, {}, { command: [exe], cwd: elsewhere });
    try {
      const health: any = await (await fetch(`${server.base}/health`)).json();
      expect(health.status).toBe('ok');
      expect(health.details.catalogs).toMatchObject({ version: CATALOG_VERSION });

      const key = await issuer(serverTarget(server.base), { email: 'binary@example.com', keys: ['test'], csd: true });
      const auth = { authorization: `Bearer ${key.key}` };

      const stamped = await fetch(`${server.base}/cfdis`, json('POST', DEMO_INVOICE, key.key));
      expect(stamped.status).toBe(201);
      const cfdi: any = await stamped.json();
      expect(cfdi.uuid).toMatch(UUID);
      expect(cfdi.status).toBe('vigente');
      expect(cfdi.total).toBe(1160);

      const pdf = await fetch(`${server.base}/cfdis/${cfdi.id}/pdf`, { headers: auth });
      expect(pdf.status).toBe(200);
      expect(new TextDecoder().decode((await pdf.bytes()).subarray(0, 5))).toBe('%PDF-');
      const xml = await (await fetch(`${server.base}/cfdis/${cfdi.id}/xml`, { headers: auth })).text();
      expect(xml).toContain(`UUID="${cfdi.uuid}"`);

      // Received CFDI are checked against SAT's schemas by xmllint's WebAssembly, in a thread of the executable: the
      // invoice it just issued, received by its issuer, fails only the receptor check.
      const received: any = await (
        await fetch(`${server.base}/received-cfdis`, { method: 'POST', headers: { ...auth, 'content-type': 'application/xml' }, body: xml })
      ).json();
      expect(received.data[0]).toMatchObject({ result: 'invalid', reasons: [{ check: 'receptor_rfc' }] });
      const checks: any = await (await fetch(`${server.base}/received-cfdis/${received.data[0].id}`, { headers: auth })).json();
      expect(checks.checks.find((c: { name: string }) => c.name === 'xsd')).toMatchObject({ ok: true });

      const search: any = await (await fetch(`${server.base}/catalogos/productos-servicios?q=tornillo&limit=3`, { headers: auth })).json();
      expect(search.data[0].clave).toStartWith('311615');

      const docs = await fetch(`${server.base.replace(/\/api\/v1$/, '')}/docs`);
      expect(docs.status).toBe(200);
      const page = await docs.text();
      const bundle = page.match(/src="([^"]+\.js)"/)?.[1];
      expect(bundle).toBeDefined();
      expect((await fetch(new URL(bundle!, docs.url))).status).toBe(200);

      const port = new URL(server.base).port;
      const healthcheck = Bun.spawnSync([exe, 'healthcheck'], { env: { ...process.env, PORT: port } });
      expect(healthcheck.exitCode).toBe(0);
    } finally {
      await stopServer(server.proc);
    }

    // --help and --version: the same text as src/cli.ts, from inside the file.
    const help = Bun.spawnSync([exe, '--help'], { cwd: elsewhere });
    expect(help.exitCode).toBe(0);
    expect(help.stdout.toString()).toBe(HELP + '\n');
    expect(Bun.spawnSync([exe, '--version'], { cwd: elsewhere }).stdout.toString()).toBe(`${VERSION}\n`);

    // An operator command runs from the same file, on the same DATA_DIR.
    const jobs = Bun.spawnSync([exe, 'jobs', 'failed'], { cwd: elsewhere, env: { ...process.env, DATA_DIR: dataDir } });
    expect(jobs.exitCode).toBe(0);
    expect(jobs.stdout.toString()).toContain('no failed jobs');

    const db = new Database(join(dataDir, 'cfdi.sqlite'), { readonly: true });
    try {
      expect(db.query("select count(*) as n from cfdis where status = 'vigente'").get()).toEqual({ n: 1 });
      expect(db.query('pragma integrity_check').get()).toEqual({ integrity_check: 'ok' });
    } finally {
      db.close();
    }
  }, 60_000);

  test('better-sqlite3 entry point per target: the one whose prebuilt addon Bun embeds', () => {
    expect(sqliteEntryFor('bun-linux-x64')).toBe('linux-x64');
    expect(sqliteEntryFor('bun-linux-arm64-musl')).toBe('linuxmusl-arm64');
    expect(sqliteEntryFor('bun-linux-x64-baseline-glibc')).toBe('linux-x64');
    expect(sqliteEntryFor('bun-darwin-arm64')).toBe('darwin-arm64');
    expect(sqliteEntryFor('bun-windows-x64')).toBe('win32-x64');
    expect(() => sqliteEntryFor('bun-freebsd-x64')).toThrow('unsupported target');
    expect(sqliteEntryFor(undefined)).toMatch(/^(linux|linuxmusl|darwin|win32)-(x64|arm64)$/);
  });
});
