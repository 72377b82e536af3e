import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csdFiles, csdForm, issuer, serverTarget, until } from '../helpers.ts';
import { SCENARIOS, startSatMock } from '../sat-mock/sat-mock.ts';
import { json, post, startServer, stopServer } from './server.ts';

/**
 * Issue 39, acceptance 2: a server SIGKILLed while a Descarga Masiva package is on its way (SAT served it, the answer
 * never arrived) resumes after a restart from its rows: the request is not sent again, the package is asked for once
 * more (SAT's second and last download) and the request ends downloaded. A proxy in front of the SAT mock holds the
 * first Descargar answer until the kill.
 */

const RFC = 'EKU9003173C9';
const sample = (name: string) => readFileSync(join(import.meta.dir, '..', 'fixtures', 'sat', 'samples', name), 'utf8');
const received = sample('cfdi40-pago20-sandbox-WATM.xml').replace(/(<cfdi:Receptor\b[^>]*?\bRfc=")[^"]*"/, `$1${RFC}"`);

const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-satdl-crash-'));
const mock = startSatMock({ documents: [{ xml: received }] });
mock.control.scenario = SCENARIOS.finished(1, 0);
const gate = { hold: true, held: 0 };
const proxy = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    const res = await fetch(`${mock.url}${url.pathname}`, { method: req.method, headers: req.headers, body: await req.arrayBuffer() });
    if (gate.hold && (req.headers.get('soapaction') ?? '').includes('/Descargar')) {
      await res.arrayBuffer();
      gate.held++;
      return new Promise<Response>(() => {}); // never answered: the server dies waiting
    }
    return res;
  },
});
afterAll(() => {
  proxy.stop(true);
  mock.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Descarga Masiva across a SIGKILL mid-download', () => {
  test('the restarted server resumes from the rows: no second solicitud, the package asked for once more, downloaded', async () => {
    const env = {
      WORKERS: '1',
      JOB_LEASE_SECONDS: '3',
      SAT_DESCARGA_MASIVA_URL: `http://127.0.0.1:${proxy.port}`,
      SAT_DESCARGA_MASIVA_DOWNLOAD_URL: `http://127.0.0.1:${proxy.port}`,
      SAT_DOWNLOAD_POLL_SECONDS: '1',
    };
    const first = await startServer(dataDir, env);
    let id: string;
    let live: string;
    try {
      const admin = await issuer(serverTarget(first.base), { keys: ['test', 'live'] });
      live = admin.live;
      // SAT's test FIEL goes in with a test credential; the tenant's live requests sign with it.
      const fiel = await fetch(`${first.base}/fiel`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${admin.key}` },
        body: csdForm(csdFiles('EKU9003173C9_FIEL', RFC)),
      });
      expect(fiel.status).toBe(201);
      const res = await post(first.base, '/sat-downloads', { direction: 'received', kind: 'metadata', desde: '2024-01-01', hasta: '2025-12-31' }, live);
      expect(res.status).toBe(202);
      id = ((await res.json()) as { data: { id: string }[] }).data[0]!.id;
      await until(() => gate.held === 1, 'SAT served the package and its answer is held');
    } finally {
      first.proc.kill('SIGKILL');
      await first.proc.exited;
    }
    gate.hold = false;
    const [solicitud] = [...mock.control.solicitudes.values()];
    const packageId = `${solicitud!.id}_01`;
    expect(solicitud!.downloads.get(packageId)).toBe(1);

    const second = await startServer(dataDir, env);
    try {
      let record: any;
      // Asked twice a second at most: the tenant's plan allows 100 requests a minute.
      await until(
        async () => {
          record = await (await fetch(`${second.base}/sat-downloads/${id}`, json('GET', undefined, live))).json();
          if (record.status === 'downloaded' || record.status === 'failed') return true;
          await Bun.sleep(500);
          return false;
        },
        'the request ended after the restart',
        45_000,
      );
      expect(record).toMatchObject({ status: 'downloaded', id_solicitud: solicitud!.id, packages: [packageId], error: null });
      expect(mock.control.solicitudes.size).toBe(1);
      expect(solicitud!.downloads.get(packageId)).toBe(2);
    } finally {
      await stopServer(second.proc);
    }
  }, 120_000);
});
