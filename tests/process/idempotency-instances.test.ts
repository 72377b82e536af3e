import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingreso, issuer, serverTarget } from '../helpers.ts';
import { json, post, startServer, stopServer } from './server.ts';

/**
 * Issue 21: two service processes on one database (one SQLite file, or one PostgreSQL database with
 * TEST_ENGINE=postgres), as two instances behind a load balancer, get the same Idempotency-Key at the same moment: one
 * invoice, and both answer it. In one process two SQLite connections cannot overlap their transactions, so this case
 * needs two processes there (tests/lib/idempotency.test.ts runs the others in one).
 */
const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-idempotency-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('Idempotency-Key across two service processes on one database', () => {
  test('the same key sent to both at once issues one invoice; the slow case answers 202 from both', async () => {
    const first = await startServer(dataDir);
    const second = await startServer(dataDir);
    try {
      const { key } = await issuer(serverTarget(first.base), { email: 'instances@example.com', keys: ['test'], csd: true });
      for (const [i, scenario] of [undefined, 'pac_slow'].entries()) {
        const headers = { 'idempotency-key': `both-${i}`, ...(scenario ? { 'x-sandbox-scenario': scenario } : {}) };
        const answers = await Promise.all([first, second].map((s) => post(s.base, '/cfdis', ingreso(), key, headers)));
        const bodies = (await Promise.all(answers.map((r) => r.json()))) as { id: string }[];
        // pac_slow takes longer than the stamping budget: the owner answers 202, replayed to the other.
        expect(answers.map((r) => r.status)).toEqual(scenario ? [202, 202] : [201, 201]);
        expect(bodies[1]!.id).toBe(bodies[0]!.id);
      }
      const listed = (await (await fetch(`${second.base}/cfdis?limit=100`, json('GET', undefined, key))).json()) as { data: unknown[] };
      expect(listed.data.length).toBe(2);
    } finally {
      await stopServer(first.proc);
      await stopServer(second.proc);
    }
  }, 60_000);
});
