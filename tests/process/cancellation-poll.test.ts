import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issuer, serverTarget } from '../helpers.ts';
import { startServer, stopServer } from './server.ts';

/** The real scheduler polls a pending cancellation every CANCELLATION_POLL_SECONDS: with 1 s it resolves in seconds. */
const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-cancel-poll-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('CANCELLATION_POLL_SECONDS=1: cancel_pending_accept is cancelado within a few seconds, through the scheduler', async () => {
  const server = await startServer(dataDir, { CANCELLATION_POLL_SECONDS: '1' });
  try {
    const post = (path: string, body: unknown, token?: string, headers: Record<string, string> = {}) =>
      fetch(`${server.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
        body: JSON.stringify(body),
      });
    const key = await issuer(serverTarget(server.base), { email: 'poll@example.com', keys: ['test'], csd: true });
    const issued: any = await (
      await post(
        '/cfdis',
        {
          tipo: 'I',
          forma_pago: '03',
          receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' },
          conceptos: [{ clave_prod_serv: '84111506', clave_unidad: 'E48', descripcion: 'Servicio', cantidad: 1, valor_unitario: 5000, objeto_imp: '01' }],
        },
        key.key,
      )
    ).json();
    const requested = await post(`/cfdis/${issued.id}/cancel`, { motivo: '02' }, key.key, { 'x-sandbox-scenario': 'cancel_pending_accept' });
    expect(requested.status).toBe(202);
    const started = Date.now();
    let status = '';
    // Bounded: with the default poll (300 s) it would still be en_proceso when the loop gives up (20 s: a loaded machine).
    while (Date.now() - started < 20_000 && status !== 'cancelado') {
      await Bun.sleep(200);
      status = ((await (await fetch(`${server.base}/cfdis/${issued.id}/cancellation`, { headers: { authorization: `Bearer ${key.key}` } })).json()) as any)
        .status;
    }
    expect(status).toBe('cancelado');
  } finally {
    await stopServer(server.proc);
  }
}, 30_000);
