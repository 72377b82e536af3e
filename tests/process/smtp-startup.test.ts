import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { smtpSink, TEST_ENGINE } from '../helpers.ts';
import { startServer, stopServer } from './server.ts';

const work = mkdtempSync(join(tmpdir(), 'cfdi-smtp-start-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A loopback port nothing listens on: taken, then let go. */
async function closedPort() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts a server with this SMTP_URL and waits for its line about the SMTP server (or fails after 15 s). */
async function startWith(smtpUrl: string) {
  const lines: { level: string; msg: string; [k: string]: unknown }[] = [];
  const server = await startServer(
    join(work, 'data'),
    { SMTP_URL: smtpUrl, SMTP_FROM: 'facturas@example.com' },
    {
      onLog: (l) => l.startsWith('{') && lines.push(JSON.parse(l)),
    },
  );
  // The line may come in the same write as "listening", which startServer keeps in startLog.
  for (const l of server.startLog.split('\n').slice(0, -1)) if (l.startsWith('{')) lines.push(JSON.parse(l));
  const deadline = Date.now() + 15_000;
  let line: (typeof lines)[number] | undefined;
  while (!(line = lines.find((l) => l.msg.startsWith('SMTP server'))) && Date.now() < deadline) await Bun.sleep(20);
  return { ...server, line, lines };
}

// The SMTP check is the same on either engine; one start each way, on SQLite.
describe.skipIf(TEST_ENGINE !== 'sqlite')('the SMTP check at start', () => {
  test('a server that greets: one info line naming host:port (never the credentials); /health says ok', async () => {
    const sink = await smtpSink();
    const server = await startWith(sink.smtp.url);
    try {
      const host = new URL(sink.smtp.url).host;
      expect(server.line).toMatchObject({ level: 'info', msg: 'SMTP server reachable: greeting ok', server: host });
      expect(JSON.stringify(server.lines)).not.toContain('sink%20pass');
      expect(sink.logins).toEqual(['sink-user:sink pass']);
      const health = (await (await fetch(`${server.base}/health`)).json()) as any;
      expect(health.details.smtp).toMatchObject({ status: 'ok', server: host });
    } finally {
      await stopServer(server.proc);
      await sink.close();
    }
  }, 60_000);

  test('a server that refuses: one warn line with the error, and the service starts and is ready all the same', async () => {
    const port = await closedPort();
    const server = await startWith(`smtp://127.0.0.1:${port}`);
    try {
      expect(server.line).toMatchObject({
        level: 'warn',
        msg: 'SMTP server unreachable: CFDI emails wait in the queue and are retried',
        server: `127.0.0.1:${port}`,
      });
      expect(server.line!.response).toContain('ECONNREFUSED');
      const res = await fetch(`${server.base}/health`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).details.smtp).toMatchObject({ status: 'unreachable', message: expect.stringContaining('ECONNREFUSED') });
    } finally {
      await stopServer(server.proc);
    }
  }, 60_000);
});
