import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { alive, startServer } from './server.ts';

/**
 * `npm start` as a user or a process manager runs it (issue 18, item 9): SIGTERM to the npm process must stop the
 * server. npm forwards the signal to its child, a shell running the script; the script `exec`s bun so that child is
 * the server itself, not a shell that dies and leaves bun listening.
 */
const REPO = resolve(import.meta.dir, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-npm-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Every process below `pid`, read from /proc (Linux). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {} // gone meanwhile
  }
  const out: number[] = [];
  const walk = (p: number) => (children.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out;
}

describe('npm start', () => {
  test.skipIf(process.platform !== 'linux')(
    'SIGTERM to the npm process stops the server: the port closes and no process of it remains',
    async () => {
      const server = await startServer(dataDir, {}, { command: ['npm', 'start', '--silent'], cwd: REPO });
      const below = descendants(server.proc.pid);
      expect(below.length).toBeGreaterThan(0);
      expect((await fetch(`${server.base}/health`)).status).toBe(200);

      try {
        server.proc.kill('SIGTERM');
        await server.proc.exited;
        const deadline = Date.now() + 15_000;
        while (below.some(alive) && Date.now() < deadline) await Bun.sleep(100);
        expect(below.filter(alive)).toEqual([]);
        await expect(fetch(`${server.base}/health`)).rejects.toThrow();
      } finally {
        for (const pid of below.filter(alive)) process.kill(pid, 'SIGKILL'); // a failed run leaves no server behind
      }
    },
    40_000,
  );
});
