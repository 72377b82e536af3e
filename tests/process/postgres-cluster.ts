import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

/**
 * A PostgreSQL server of the test's own, for a test that stops it: a cluster made by initdb in a temporary folder,
 * on a free port of 127.0.0.1, its socket in that folder. Nobody else's connections are on it, so stopping it with
 * `-m immediate` costs nothing outside the test. initdb and postgres refuse root: as root they run as `postgres`.
 */
export interface Cluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** Stops it at once, as a crash would (`pg_ctl stop -m immediate`). */
  crash(): void;
  /** Starts it again and waits until it answers. */
  start(): Promise<void>;
  /** Stops it and removes its folder; safe to call twice, and called at the process's exit too. */
  remove(): void;
}

/** The binaries and the user to run them as, or why no cluster can be made here (one line; `bin` when they exist). */
export function clusterTools(): { bin: string; asUser: string[] } | { bin?: string; missing: string } {
  const bin = binDir();
  if (!bin) return { missing: 'no PostgreSQL server binaries (initdb, pg_ctl) found' };
  if (process.getuid?.() !== 0) return { bin, asUser: [] };
  if (!Bun.which('runuser') || Bun.spawnSync(['id', '-u', 'postgres']).exitCode !== 0)
    return { bin, missing: 'running as root without a postgres user and runuser to run initdb as (it refuses root)' };
  return { bin, asUser: ['runuser', '-u', 'postgres', '--'] };
}

/** Debian's /usr/lib/postgresql/<newest version>/bin, else initdb and pg_ctl on the PATH. */
function binDir(): string | undefined {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')) && existsSync(join(debian, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], 'bin');
  }
  const initdb = Bun.which('initdb');
  return initdb && Bun.which('pg_ctl') ? join(initdb, '..') : undefined;
}

export async function startCluster(tools: { bin: string; asUser: string[] }): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'cfdi-cluster-'));
  if (tools.asUser.length > 0) {
    const id = (flag: string) => Number(Bun.spawnSync(['id', flag, 'postgres']).stdout.toString().trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const run = (args: string[]) => Bun.spawnSync([...tools.asUser, ...args], { stdout: 'pipe', stderr: 'pipe' });
  let port = 0;
  const pgCtl = (...args: string[]) => run([join(tools.bin, 'pg_ctl'), '-D', data, ...args]);
  const startOnce = () =>
    // fsync off: a stop -m immediate is a crash of the server, not of the machine; what was written stays in the page cache.
    pgCtl('-l', log, '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start');
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    pgCtl('stop', '-m', 'immediate');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', remove);
  try {
    const made = run([join(tools.bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    if (made.exitCode !== 0) throw new Error(`initdb failed: ${made.stderr}`);
    // A free port as the kernel gives it; another process may take it before the server binds: then another one.
    for (let attempt = 1; ; attempt++) {
      port = freePort();
      const started = startOnce();
      if (started.exitCode === 0) break;
      if (attempt >= 5) throw new Error(`pg_ctl start failed: ${started.stderr}\n${existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : ''}`);
    }
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await answers(url);
    return {
      url,
      crash() {
        const stopped = pgCtl('stop', '-m', 'immediate');
        if (stopped.exitCode !== 0) throw new Error(`pg_ctl stop: ${stopped.stderr}`);
      },
      async start() {
        const started = startOnce();
        if (started.exitCode !== 0) throw new Error(`pg_ctl start: ${started.stderr}`);
        await answers(url);
      },
      remove,
    };
  } catch (err) {
    remove();
    throw err;
  }
}

/** Waits until the server at `url` answers a query. */
async function answers(url: string) {
  for (let i = 0; i < 100; i++) {
    const probe = postgres(url, { max: 1, connect_timeout: 1, onnotice: () => {} });
    try {
      await probe`select 1`;
      return;
    } catch {
      await Bun.sleep(200);
    } finally {
      await probe.end({ timeout: 1 });
    }
  }
  throw new Error(`PostgreSQL at ${url} did not answer within 20 s`);
}

/** A port the kernel gives free at this moment (another process may take it before the caller binds it). */
export function freePort(): number {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
  const { port } = probe;
  probe.stop(true);
  return port!;
}
