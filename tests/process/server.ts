import { expect } from 'bun:test';
import { TEST_ENGINE } from '../helpers.ts';

/**
 * On PostgreSQL (TEST_ENGINE=postgres) a server's database is a new PostgreSQL database per DATA_DIR (a restart on the
 * same DATA_DIR finds its data again), and every start shares one JWT_SECRET and MASTER_KEY, as instances must.
 */
const databases = new Map<string, Promise<string>>();
/** The environment a server on `dataDir` runs with: on PostgreSQL its database (made on first use) and shared secrets. */
export async function engineEnv(dataDir: string): Promise<Record<string, string>> {
  if (TEST_ENGINE === 'sqlite') return { JWT_SECRET: '', MASTER_KEY: '' };
  if (!databases.has(dataDir)) {
    const { migratedDatabase } = await import('../postgres.ts');
    const { openPostgres } = await import('../../src/db/postgres/client.ts');
    const { closeDatabase } = await import('../../src/db/index.ts');
    databases.set(
      dataDir,
      migratedDatabase(async (url) => closeDatabase(await openPostgres(url))),
    );
  }
  return { DATABASE_URL: await databases.get(dataDir)!, JWT_SECRET: 'process-test-jwt-secret-long-enough-0123456789', MASTER_KEY: '07'.repeat(32) };
}

/**
 * Starts `src/index.ts` (or `command`, e.g. the compiled executable) on a free port (PORT=0) and waits for its
 * "listening" log line; `startLog` is stdout up to it. An `env` naming DATABASE_URL chooses the database itself.
 */
export async function startServer(
  dataDir: string,
  env: Record<string, string> = {},
  { command = [process.execPath, 'src/index.ts'], cwd, onLog }: { command?: string[]; cwd?: string; onLog?: (line: string) => void } = {},
) {
  const proc = Bun.spawn(command, {
    cwd,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...(env.DATABASE_URL ? {} : await engineEnv(dataDir)), ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const reader = proc.stdout.getReader();
  let buffered = '';
  // Generous: a start loads the catalogs and its workers, on a machine the other suites may be loading too.
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    // A start that hangs silently fails at the deadline with what it printed, instead of holding the test.
    const timer = Bun.sleep(deadline - Date.now()).then(() => ({ value: undefined, done: true, late: true }) as const);
    const { value, done } = await Promise.race([reader.read(), timer]);
    if (done) break;
    buffered += new TextDecoder().decode(value);
    const line = buffered.split('\n').find((l) => l.includes('"msg":"listening"'));
    if (line) {
      reader.releaseLock();
      // Keep draining the logs (to `onLog`, a line at a time, when given).
      let rest = '';
      const decoder = new TextDecoder();
      void proc.stdout.pipeTo(
        new WritableStream({
          write(chunk) {
            if (!onLog) return;
            const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
            rest = lines.pop()!;
            for (const l of lines) onLog(l);
          },
        }),
      );
      return { proc, base: `http://127.0.0.1:${JSON.parse(line).port}/api/v1`, startLog: buffered };
    }
  }
  proc.kill('SIGKILL');
  throw new Error(`server did not start: ${buffered} ${await new Response(proc.stderr).text()}`);
}

export async function stopServer(proc: Bun.Subprocess) {
  proc.kill('SIGTERM');
  expect(await proc.exited).toBe(0);
}

/** Request options for a JSON call, with a bearer credential when given. */
export const json = (method: string, body?: unknown, token?: string, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  body: body === undefined ? undefined : JSON.stringify(body),
});

/** POST a JSON body to `base` + `path`. */
export const post = (base: string, path: string, body: unknown, token?: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, json('POST', body, token, headers));

/** Whether a process with this pid still exists. */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
