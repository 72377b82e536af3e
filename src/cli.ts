import { desc, eq } from 'drizzle-orm';
import { resolve } from 'node:path';
import { BackupError, backupDatabase, restoreDatabase } from './db/backup.ts';
import { openDatabase } from './db/client.ts';
import { JOB_STATUSES, jobs, PLANS, tenants, type JobStatus, type Plan } from './db/schema/index.ts';
import { ConfigError, loadConfig } from './env.ts';

/**
 * Operator commands, run beside the service on the same DATA_DIR (never exposed over HTTP):
 *   npm run cli -- set-plan <tenant_id> <sandbox|starter|pro|enterprise> [requests_per_minute]
 *   npm run cli -- jobs [queued|running|done|failed]     (default: failed; newest 100, one JSON line each)
 *   npm run backup -- <file>                             (while the service runs; a consistent, checked copy)
 *   npm run restore -- <file>                            (with the service stopped)
 * A running service picks a plan change up within 10 s (its tenant cache).
 */
const USAGE =
  'usage: set-plan <tenant_id> <sandbox|starter|pro|enterprise> [requests_per_minute] | jobs [queued|running|done|failed] | backup <file> | restore <file>';

export function runCli(args: string[], env: Record<string, string | undefined> = process.env): { code: number; out: string } {
  const [command, ...rest] = args;
  if (command === 'jobs') return listJobs(rest[0] ?? 'failed', env);
  if (command === 'backup' || command === 'restore') return backupOrRestore(command, rest, env);
  if (command !== 'set-plan') return { code: 2, out: USAGE };
  const [tenantId, plan, limitText] = rest;
  if (!tenantId || !PLANS.includes(plan as Plan)) return { code: 2, out: `usage: set-plan <tenant_id> <${PLANS.join('|')}> [requests_per_minute]` };
  const limit = limitText === undefined ? null : Number(limitText);
  if (limit !== null && (!Number.isInteger(limit) || limit < 1000 || plan !== 'enterprise')) {
    return { code: 2, out: 'requests_per_minute is only for enterprise and must be an integer ≥ 1000' };
  }
  const db = openDatabase(loadConfig(env).databasePath);
  try {
    const res = db
      .update(tenants)
      .set({ plan: plan as Plan, rateLimitPerMinute: limit, updatedAt: new Date().toISOString() })
      .where(eq(tenants.id, tenantId))
      .run();
    if (res.changes !== 1) return { code: 1, out: `no tenant ${tenantId}` };
    return { code: 0, out: `tenant ${tenantId}: plan ${plan}${limit ? `, ${limit} requests per minute` : ''}` };
  } finally {
    db.$client.close();
  }
}

/** Prints a JSON summary; a refused backup or restore (exit 1) says why and changes nothing. */
function backupOrRestore(command: 'backup' | 'restore', rest: string[], env: Record<string, string | undefined>): { code: number; out: string } {
  const [file] = rest;
  if (!file || rest.length !== 1) return { code: 2, out: `usage: ${command} <file>` };
  const config = loadConfig(env);
  try {
    const summary = command === 'backup' ? backupDatabase(config.databasePath, resolve(file)) : restoreDatabase(resolve(file), config.databasePath, config.masterKey);
    const note = command === 'backup' ? 'Keep MASTER_KEY (or DATA_DIR/master-key) with it: the CSD private keys inside are sealed with it.' : 'Start the service: pending migrations apply at start.';
    return { code: 0, out: `${JSON.stringify(summary)}\n${note}` };
  } catch (err) {
    if (err instanceof BackupError) return { code: 1, out: `${command} refused: ${err.message}` };
    throw err;
  }
}

function listJobs(status: string, env: Record<string, string | undefined>): { code: number; out: string } {
  if (!(JOB_STATUSES as readonly string[]).includes(status)) return { code: 2, out: USAGE };
  const db = openDatabase(loadConfig(env).databasePath);
  try {
    const rows = db
      .select({ id: jobs.id, type: jobs.type, tenant_id: jobs.tenantId, payload: jobs.payload, attempts: jobs.attempts, last_error: jobs.lastError, run_at: jobs.runAt, created_at: jobs.createdAt })
      .from(jobs)
      .where(eq(jobs.status, status as JobStatus))
      .orderBy(desc(jobs.id))
      .limit(100)
      .all();
    return { code: 0, out: rows.map((r) => JSON.stringify(r)).join('\n') || `no ${status} jobs` };
  } finally {
    db.$client.close();
  }
}

/** Runs one command, prints its answer and exits with its code. */
export function main(args: string[]): never {
  try {
    const { code, out } = runCli(args);
    (code === 0 ? console.log : console.error)(out);
    process.exit(code);
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  }
}

if (import.meta.main) main(process.argv.slice(2));
