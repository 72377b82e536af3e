import postgres from 'postgres';

/** A PostgreSQL server a start cannot use: its message is the one line to print, naming the setting to fix. */
export class DatabaseUnreachable extends Error {}

/**
 * What a server still coming up answers (as under docker-compose, where the service starts beside it): refused, not
 * resolvable yet, closed or silent, or "the database system is starting up" (57P03). Anything else stays wrong.
 */
const PASSING = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P03',
]);
/** The pause between two tries, and the longest one try waits for an answer. */
const PAUSE_MS = 500;
const TRY_SECONDS = 10;

/** Where the database is, for a message: the server and the database, never the password. */
export function postgresName(url: string): string {
  const u = new URL(url);
  return `PostgreSQL ${u.host}${u.pathname}`;
}

/**
 * Connects once to `url` and lets go, retrying what a server still starting answers for up to `timeoutSeconds`
 * (`waiting` is told the first time); throws DatabaseUnreachable at once on what waiting cannot fix (an unknown role
 * or database, a wrong password), or when the time is up.
 */
export async function reachPostgres(url: string, timeoutSeconds: number, waiting?: (problem: string) => void): Promise<void> {
  const deadline = performance.now() + timeoutSeconds * 1000;
  let told = false;
  for (;;) {
    const left = (deadline - performance.now()) / 1000;
    const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: Math.min(TRY_SECONDS, Math.max(1, left)) });
    let code: string | undefined;
    let err: unknown;
    try {
      await sql`select 1`;
      return;
    } catch (e) {
      err = e;
      code = (e as { code?: unknown }).code as string | undefined;
    } finally {
      await sql.end({ timeout: 1 }).catch(() => {});
    }
    if (!code || !PASSING.has(code)) throw new DatabaseUnreachable(refusal(url, err));
    const now = performance.now();
    if (now >= deadline) throw new DatabaseUnreachable(gaveUp(url, code, timeoutSeconds));
    if (!told) waiting?.(problemOf(url, code));
    told = true;
    await Bun.sleep(Math.min(PAUSE_MS, deadline - now));
  }
}

function problemOf(url: string, code: string): string {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host ${new URL(url).hostname} cannot be resolved`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === '57P03') return 'the database system is starting up';
  return `no answer (${code})`;
}

function gaveUp(url: string, code: string, seconds: number): string {
  const fix =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? 'check the host in DATABASE_URL, or raise DATABASE_CONNECT_TIMEOUT_SECONDS while its name is being set up'
      : code === '57P03'
        ? 'raise DATABASE_CONNECT_TIMEOUT_SECONDS for a server that starts slowly'
        : 'is the server running? check the host and port in DATABASE_URL, or raise DATABASE_CONNECT_TIMEOUT_SECONDS for a server that starts slowly';
  return `cannot reach the database (${postgresName(url)}): ${problemOf(url, code)}, still after ${seconds} s (${fix})`;
}

/** Problems waiting cannot fix: say which part of DATABASE_URL, or of the server, to change. */
function refusal(url: string, err: unknown): string {
  const e = err as { code?: string; message?: string };
  const message = e.message ?? String(err);
  const fix =
    e.code === '3D000'
      ? 'create it, or fix the database name in DATABASE_URL'
      : e.code === '28000'
        ? 'fix the user in DATABASE_URL, or create that role on the server'
        : e.code === '28P01'
          ? 'fix the password in DATABASE_URL'
          : 'check DATABASE_URL';
  return `cannot use the database (${postgresName(url)}): ${message} (${fix})`;
}
