import { describe, expect, test } from 'bun:test';
import { dirname, join } from 'node:path';
import { closeDatabase } from '../../src/db/engine.ts';
import { openPostgres } from '../../src/db/postgres/client.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { uncaughtExceptionHandler } from '../../src/lib/uncaught.ts';
import { TEST_ENGINE } from '../helpers.ts';

/**
 * Issue 35: a TypeError thrown inside postgres.js's connection code (`socket.write` after a server restart) is a
 * lost connection the pool replaces, not a reason to exit; any other uncaught exception still exits.
 */
const driver = join(dirname(Bun.resolveSync('postgres', import.meta.dir)), 'connection.js');
const thrown = (message: string, frames: string[]) => Object.assign(new TypeError(message), { stack: [`TypeError: ${message}`, ...frames].join('\n') });
const fromSocket = () =>
  thrown("socket.write is not a function. (In 'socket.write(chunk, fn)', 'socket.write' is undefined)", [`    at nextWrite (${driver}:255:22)`]);

function handler(serving = true) {
  const lines: Record<string, unknown>[] = [];
  const exits: number[] = [];
  let now = 0;
  const handle = uncaughtExceptionHandler({
    logger: createLogger('info', (line) => void lines.push(JSON.parse(line))),
    exit: (code) => void exits.push(code),
    now: () => now,
    serving: () => serving,
  });
  return { handle, lines, exits, advance: (ms: number) => void (now += ms) };
}

describe('an uncaught exception', () => {
  test("from postgres.js's socket path: logged once per interval with a count, and the process does not exit", () => {
    const h = handler();
    for (let i = 0; i < 5; i++) h.handle(fromSocket());
    // The socket itself threw (a native frame above the driver's).
    h.handle(thrown('Socket is closed', ['    at write (native:1:11)', `    at nextWrite (${driver}:255:22)`]));
    expect(h.exits).toEqual([]);
    expect(h.lines).toHaveLength(1);
    expect(h.lines[0]).toMatchObject({ level: 'error', msg: 'database connection error inside the PostgreSQL driver: the pool reconnects', suppressed: 0 });
    h.advance(30_000);
    h.handle(fromSocket());
    expect(h.lines).toHaveLength(2);
    expect(h.lines[1]!.suppressed as number).toBe(5);
    expect(h.exits).toEqual([]);
  });

  test('from postgres.js while the process starts: exits, to be started again', () => {
    const h = handler(false);
    h.handle(fromSocket());
    expect(h.exits).toEqual([1]);
    expect(h.lines.map((l) => l.msg)).toEqual(['uncaught exception: exiting']);
  });

  test('from this code, even when postgres.js called it (a notification handler), still exits', () => {
    const h = handler();
    h.handle(thrown('boom', [`    at onNotify (${join(import.meta.dir, '../../src/topology/postgres.ts')}:20:5)`, `    at handle (${driver}:700:3)`]));
    h.handle(new Error('a bug'));
    expect(h.exits).toEqual([1, 1]);
    expect(h.lines.map((l) => l.msg)).toEqual(['uncaught exception: exiting', 'uncaught exception: exiting']);
  });
});

// The driver and its pool for real: PostgreSQL only (SQLite's driver is synchronous, its errors reach the request).
describe.skipIf(TEST_ENGINE !== 'postgres')('a socket write failing inside postgres.js, in a process', () => {
  test('is logged, the process keeps running and the pool answers the next query', async () => {
    const { migratedDatabase } = await import('../postgres.ts');
    const url = await migratedDatabase(async (template) => closeDatabase(await openPostgres(template)));
    const child = Bun.spawn([process.execPath, join(import.meta.dir, 'driver-fault-child.ts')], {
      env: { ...process.env, FAULT_DATABASE_URL: url },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const { lines, after } = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(lines).toEqual([expect.objectContaining({ msg: 'database connection error inside the PostgreSQL driver: the pool reconnects' })]);
    expect(lines[0].err).toContain('socket.write');
    expect(after).toEqual({ n: 3 });
  }, 30_000);
});
