import { afterAll, describe, expect, test } from 'bun:test';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli.ts';
import { issuer, serverTarget, TEST_ENGINE } from '../helpers.ts';
import { startServer, stopServer } from './server.ts';

/**
 * Acceptance: queue 200 invoices with the provider down, SIGKILL the server while it stamps them, restart it:
 * every invoice ends vigente exactly once, no UUID twice, none lost, no job stuck.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const N = 200;
// The jobs the killed run was stamping stay leased to it until the lease ends: 5 s here (30 s by default), so the
// restart takes them over without waiting out the default.
const LEASE = { JOB_LEASE_SECONDS: '5' };

// SQLite only: SQLite's file after a SIGKILL (on PostgreSQL, tests/process/multi-instance.test.ts kills instances).
describe.skipIf(TEST_ENGINE !== 'sqlite')('crash safety', () => {
  test('SIGKILL while stamping a queue of 200; after restart all are stamped exactly once', async () => {
    // Set-up run: tenant, key, CSD; then the operator raises the plan so 200 calls fit in a minute.
    const setup = await startServer(dataDir);
    const key = await issuer(serverTarget(setup.base), { email: 'crash@example.com', keys: ['test'], csd: true });
    await stopServer(setup.proc);
    expect((await runCli(['set-plan', key.tenant.id, 'enterprise', '100000'], { DATA_DIR: dataDir })).code).toBe(0);

    // Run 1: the provider is down for every synchronous attempt; the worker starts stamping the queue at once.
    const first = await startServer(dataDir, LEASE);
    const body = {
      tipo: 'I',
      forma_pago: '03',
      receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' },
      conceptos: [
        {
          clave_prod_serv: '84111506',
          clave_unidad: 'E48',
          descripcion: 'Servicio',
          cantidad: 1,
          valor_unitario: 100,
          impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
        },
      ],
    };
    const statuses = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const res = await fetch(`${first.base}/cfdis`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${key.key}`,
            'x-sandbox-scenario': 'pac_unavailable',
            'idempotency-key': `crash-${i}`,
          },
          body: JSON.stringify(body),
        });
        return res.status;
      }),
    );
    expect(statuses.every((s) => s === 202)).toBe(true);
    // Kill as soon as the worker has stamped some of the queue (mid-stamping), without a clean shutdown.
    const watch = new Database(join(dataDir, 'cfdi.sqlite'), { readonly: true });
    const stamped = () => (watch.prepare("select count(*) n from cfdis where status = 'vigente'").get() as { n: number }).n;
    for (let i = 0; i < 500 && stamped() < 5; i++) await Bun.sleep(5);
    first.proc.kill('SIGKILL');
    await first.proc.exited;
    const stampedBeforeRestart = stamped();
    watch.close();

    // Run 2: the provider is up; recovered and queued jobs finish.
    const second = await startServer(dataDir, LEASE);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const page: any = await (await fetch(`${second.base}/cfdis?status=en_cola&limit=1`, { headers: { authorization: `Bearer ${key.key}` } })).json();
      if (page.data.length === 0) break;
      await Bun.sleep(200);
    }
    await stopServer(second.proc);

    const check = new Database(join(dataDir, 'cfdi.sqlite'), { readonly: true });
    const n = (sql: string) => (check.prepare(sql).get() as { n: number }).n;
    expect(n('select count(*) n from cfdis')).toBe(N);
    expect(n("select count(*) n from cfdis where status = 'vigente'")).toBe(N);
    expect(n('select count(distinct uuid) n from cfdis')).toBe(N);
    expect(n('select count(distinct folio) n from cfdis')).toBe(N);
    expect(n("select count(*) n from jobs where status <> 'done'")).toBe(0);
    expect(n("select count(*) n from events where type = 'cfdi.timbrado'")).toBe(N);
    expect(n("select count(*) n from cfdi_documents where instr(cast(xml as text), '<tfd:TimbreFiscalDigital') > 0")).toBe(N);
    check.close();
    console.log(`crash test: ${stampedBeforeRestart} of ${N} stamped before SIGKILL, the rest after restart`);
  }, 120_000);
});
