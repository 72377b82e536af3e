import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csdFiles, csdForm, ICV, ingreso, issuer, serverTarget, until } from '../helpers.ts';
import { CREATES, receiptBody, type CreateContext } from './creates.ts';
import { RetencionExamples } from '../../src/invoices/retenciones/examples.ts';
import { post, startServer, stopServer } from './server.ts';

/**
 * Issue 35: a create that committed and died before answering (SIGKILL) made a second resource when its client
 * retried with the same Idempotency-Key. Every create of the document (tests/process/creates.ts) is sent once, held by
 * TEST_HOLD_BEFORE_ANSWER between its commit and its answer, the server is killed with all of them held, restarted on
 * the same data, and each is sent again: exactly one resource each, and the retry answers it.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-idempotency-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A port nothing listens on: emails are recorded and queued, their sending fails and waits for a retry. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Idempotency-Key across a crash between commit and answer', () => {
  test('every create, killed before its answer and retried after a restart, exists once and the retry answers it', async () => {
    const env = {
      WORKERS: '1',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SMTP_URL: `smtp://127.0.0.1:${await closedPort()}`,
      SMTP_FROM: 'facturas@example.com',
      EMAIL_TEST_CAPTURE: 'captura@example.com', // test-mode emails may name any address
    };
    let held = 0;
    const first = await startServer(dataDir, { ...env, TEST_HOLD_BEFORE_ANSWER: '1' }, { onLog: (l) => l.includes('holding before answer') && held++ });
    let ctx: CreateContext;
    try {
      // Set-up without Idempotency-Key (nothing is held): the tenant, then what the creates act on once its CSD exists.
      const admin = await issuer(serverTarget(first.base), { email: 'crash-admin@example.com', keys: ['test'] });
      ctx = { base: first.base, token: admin.token, key: admin.key, toEmail: '', toCancel: '', retencionToEmail: '', receipt: '', day: '', setupReceipts: [] };
      const sent: Promise<Response>[] = [];
      const hold = async (i: number) => {
        const create = CREATES[i]!;
        sent.push(create.send(ctx, { 'idempotency-key': `crash-${i}` }).catch(() => new Response(null, { status: 599 })));
        await until(() => held === i + 1, `${create.route} held before its answer`);
      };
      await hold(0); // the CSD
      const issued = async () => {
        const res = await post(first.base, '/cfdis', ingreso(), admin.key);
        expect(res.status).toBe(201);
        return ((await res.json()) as { id: string }).id;
      };
      ctx.toEmail = await issued();
      ctx.toCancel = await issued();
      const retencion = await post(first.base, '/retenciones', RetencionExamples.retencion_arrendamiento.value, admin.key);
      expect(retencion.status).toBe(201);
      ctx.retencionToEmail = ((await retencion.json()) as { id: string }).id;
      const receipt = async () => {
        const res = await post(first.base, '/receipts', receiptBody(), admin.key);
        expect(res.status).toBe(201);
        return (await res.json()) as { id: string; fecha: string };
      };
      const [self, forGlobal] = [await receipt(), await receipt()];
      ctx.receipt = self.id;
      ctx.day = forGlobal.fecha.slice(0, 10);
      ctx.setupReceipts = [self.id, forGlobal.id];
      // POST /sat-downloads signs with the tenant's FIEL.
      const fiel = await fetch(`${first.base}/fiel`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${admin.key}` },
        body: csdForm(csdFiles('EKU9003173C9_FIEL', 'EKU9003173C9')),
      });
      expect(fiel.status).toBe(201);
      for (let i = 1; i < CREATES.length; i++) await hold(i);
      // Every create committed and none answered: kill the server there.
      first.proc.kill('SIGKILL');
      await first.proc.exited;
      expect((await Promise.all(sent)).every((r) => r.status === 599)).toBe(true);
    } catch (err) {
      first.proc.kill('SIGKILL');
      throw err;
    }

    const second = await startServer(dataDir, env);
    try {
      ctx.base = second.base;
      // All at once: each waits out the dead process's lease (6 s) on its claim, then answers from what it bound.
      const retries = await Promise.all(
        CREATES.map(async (create, i) => {
          const res = await create.send(ctx, { 'idempotency-key': `crash-${i}` });
          return { create, status: res.status, body: (await res.json()) as any };
        }),
      );
      // One table for every route, so a failure names each create that made two or answered wrong.
      const outcomes = await Promise.all(
        retries.map(async ({ create, status, body }) => {
          const made = await create.made(ctx);
          const answered = create.statuses.includes(status) && (create.idOf ?? ((b) => b.id))(body) === made[0];
          return { route: create.route, made: made.length, answer: answered ? 'the one made' : `${status} ${JSON.stringify(body).slice(0, 200)}` };
        }),
      );
      expect(outcomes).toEqual(CREATES.map((c) => ({ route: c.route, made: 1, answer: 'the one made' })));
      // What a resumed answer carries is usable: the API key's secret authenticates, the self-invoiced receipt is closed.
      const apiKey = retries.find((r) => r.create.route === 'POST /api/v1/api-keys')!.body.key as string;
      expect((await fetch(`${second.base}/cfdis?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
      const receipt = (await (await fetch(`${second.base}/receipts/${ctx.receipt}`, { headers: { authorization: `Bearer ${ctx.key}` } })).json()) as any;
      expect(receipt.status).toBe('invoiced');
      expect(ICV.rfc).toBe(retries.find((r) => r.create.route === 'POST /api/v1/receipts/{id}/invoice')!.body.receptor.rfc);
    } finally {
      await stopServer(second.proc);
    }
  }, 90_000);
});
