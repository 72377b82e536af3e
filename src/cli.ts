import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createPasswordHasher } from './auth/passwords.ts';
import { RegisterSchema } from './auth/session/schemas.ts';
import { createTenantWithAdmin } from './auth/session/service.ts';
import { BackupError, backupDatabase, fileCopyRefusal, restoreDatabase } from './db/backup.ts';
import { runBootWork } from './boot.ts';
import { BootLockTimeout } from './db/boot-lock.ts';
import type { Db } from './db/client.ts';
import { closeDatabase } from './db/engine.ts';
import { MasterKeyMismatch } from './db/master-key.ts';
import { databaseName, openConfiguredDatabase } from './db/open.ts';
import { JOB_STATUSES, type JobStatus } from './db/schema/index.ts';
import { jobsInStatus } from './jobs/queue.ts';
import { setTenantPlan } from './auth/tenants/service.ts';
import { tellOthersThrough } from './lib/identity-changes.ts';
import { coordinationFor } from './topology/one-database.ts';
import { PLAN_LIMITS, PLANS, type Plan } from './lib/plans.ts';
import { ConfigError, loadConfig } from './env.ts';
import { ServiceError } from './lib/service-error.ts';
import { zodDetails } from './lib/errors.ts';
import pkg from '../package.json' with { type: 'json' };

type Env = Record<string, string | undefined>;
type Result = { code: number; out: string };

/**
 * Operator commands, run beside the service on the same DATA_DIR (never exposed over HTTP), as
 * `npm run cli -- <command>` or `cfdi-api <command>`. This table is the one list: usage() and `--help` print it.
 * On PostgreSQL every running instance picks a plan change up at once (NOTIFY); a SQLite service within 10 s (its
 * tenant cache).
 */
export const COMMANDS: Record<string, { args: string; summary: string; run: (args: string[], env: Env) => Result | Promise<Result> }> = {
  migrate: {
    args: '',
    summary:
      'apply pending migrations and the once-per-database boot work (master key check, sandbox SAT certificate), then exit; ' +
      'every start does the same under the same locks, this is for migrating apart',
    run: migrate,
  },
  'create-tenant': {
    args: '--rfc <RFC> --nombre <razón social> --regimen-fiscal <c_RegimenFiscal> --codigo-postal <CP> --email <admin email> [--admin-nombre <name>]',
    summary: "a tenant and its first ADMIN (REGISTRATION=closed leaves only this); the admin's password from ADMIN_PASSWORD or stdin",
    run: createTenant,
  },
  'set-plan': {
    args: `<tenant_id> <${PLANS.join('|')}> [requests_per_minute]`,
    summary: `change a tenant's plan (requests_per_minute: enterprise only, ≥ ${PLAN_LIMITS.enterprise})`,
    run: setPlan,
  },
  jobs: {
    args: `[${JOB_STATUSES.join('|')}]`,
    summary: 'list jobs in that status (default: failed; newest 100, one JSON line each)',
    run: (rest, env) => listJobs(rest[0] ?? 'failed', env),
  },
  backup: {
    args: '<file>',
    summary: 'a consistent, checked copy of the database while the service runs: business data only (the SAT catalogs are rebuilt at start)',
    run: (rest, env) => backupOrRestore('backup', rest, env),
  },
  restore: {
    args: '<file>',
    summary: 'put a backup in place of the database, with the service stopped',
    run: (rest, env) => backupOrRestore('restore', rest, env),
  },
};

/** Two lines per command: its arguments, then what it does. */
export function usage(prefix = ''): string {
  return Object.entries(COMMANDS)
    .map(([name, c]) => `${prefix}${[name, c.args].filter(Boolean).join(' ')}\n${prefix}    ${c.summary}`)
    .join('\n');
}

/** `--help` of the executable (src/bin.ts serves and answers healthcheck; the rest is this table) and of `npm run cli`. */
export const HELP = `cfdi-api ${pkg.version}: ${pkg.description}

usage: cfdi-api [command]        (from a checkout: npm start, or npm run cli -- <command>)
  serve
      the default: serve the API on $PORT; settings from the environment (README.md, "Configuration")
  healthcheck
      exit 0 when the service on $HOST:$PORT answers /api/v1/health as healthy, 1 otherwise
  --help, -h
      this list
  --version, -v
      the version
Operator commands, on the service's database (DATABASE_URL, or DATA_DIR's SQLite file):
${usage('  ')}`;

const usageOf = (name: string) => `usage: ${[name, COMMANDS[name]!.args].filter(Boolean).join(' ')}`;

export async function runCli(args: string[], env: Env = process.env): Promise<Result> {
  const [command, ...rest] = args;
  if (command === '--help' || command === '-h' || command === 'help') return { code: 0, out: HELP };
  if (command === '--version' || command === '-v') return { code: 0, out: pkg.version };
  const entry = command === undefined ? undefined : COMMANDS[command];
  if (!entry) return { code: 2, out: `${command === undefined ? 'a command is needed' : `unknown command ${command}`}\n\n${HELP}` };
  return entry.run(rest, env);
}

/**
 * Migrations and boot work, as a start does them (src/index.ts, src/boot.ts), and nothing else: no catalogs (each
 * process loads its own), no demo tenant (the instance that makes it prints its credentials). One line either way.
 */
async function migrate(rest: string[], env: Env): Promise<Result> {
  if (rest.length > 0) return { code: 2, out: usageOf('migrate') };
  const config = loadConfig(env);
  const where = databaseName(config.database);
  let applied = 0;
  let db: Db;
  try {
    db = await openConfiguredDatabase(config.database, {
      synchronous: config.sqliteSynchronous,
      migrated: (n) => {
        applied = n;
      },
      lockTimeoutSeconds: config.bootLockTimeoutSeconds,
    });
  } catch (err) {
    return { code: 1, out: `migrate failed: cannot open or migrate the database (${where}): ${err instanceof Error ? err.message : err}` };
  }
  try {
    const boot = await runBootWork(db, { masterKey: config.masterKey, lockTimeoutSeconds: config.bootLockTimeoutSeconds });
    const certificate = boot.sandboxSatCreated ? 'created' : 'present';
    return {
      code: 0,
      out: `migrated ${where}: ${applied} migration${applied === 1 ? '' : 's'} applied; master key check ${boot.masterKeyCheck}; sandbox SAT certificate ${certificate}`,
    };
  } catch (err) {
    if (err instanceof MasterKeyMismatch || err instanceof BootLockTimeout) return { code: 1, out: `migrate refused: ${err.message}` };
    throw err;
  } finally {
    await closeDatabase(db);
  }
}

async function setPlan(rest: string[], env: Env): Promise<Result> {
  const [tenantId, plan, limitText] = rest;
  if (!tenantId || !PLANS.includes(plan as Plan)) return { code: 2, out: usageOf('set-plan') };
  const limit = limitText === undefined ? null : Number(limitText);
  if (limit !== null && (!Number.isInteger(limit) || limit < PLAN_LIMITS.enterprise || plan !== 'enterprise')) {
    return { code: 2, out: `requests_per_minute is only for enterprise and must be an integer ≥ ${PLAN_LIMITS.enterprise}` };
  }
  const db = await openConfiguredDatabase(loadConfig(env).database);
  // The serving processes drop their cached plan: on PostgreSQL, told through NOTIFY as any instance would.
  tellOthersThrough(db, coordinationFor(db, { listen: false }).identityChanges);
  try {
    if (!(await setTenantPlan(db, tenantId, plan as Plan, limit, new Date()))) return { code: 1, out: `no tenant ${tenantId}` };
    return { code: 0, out: `tenant ${tenantId}: plan ${plan}${limit ? `, ${limit} requests per minute` : ''}` };
  } finally {
    await closeDatabase(db);
  }
}

/**
 * The same checks as POST /auth/register (RegisterSchema). The password never comes through argv
 * (other users see it in `ps`): ADMIN_PASSWORD, or the first line of stdin.
 */
async function createTenant(rest: string[], env: Env): Promise<Result> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        rfc: { type: 'string' },
        nombre: { type: 'string' },
        'regimen-fiscal': { type: 'string' },
        'codigo-postal': { type: 'string' },
        email: { type: 'string' },
        'admin-nombre': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return { code: 2, out: `${err instanceof Error ? err.message : err}\n${usageOf('create-tenant')}` };
  }
  const password = env.ADMIN_PASSWORD ?? readFileSync(0, 'utf8').split('\n')[0]!;
  const parsed = RegisterSchema.safeParse({
    email: values.email,
    password,
    nombre: values['admin-nombre'] ?? values.nombre,
    tenant: { rfc: values.rfc, nombre: values.nombre, regimen_fiscal: values['regimen-fiscal'], codigo_postal: values['codigo-postal'] },
  });
  if (!parsed.success) {
    const problems = zodDetails(parsed.error).map((d) => `${d.field.replace(/^tenant\./, '').replaceAll('_', '-')}: ${d.issue}`);
    return { code: 2, out: `${problems.join('\n')}\n${usageOf('create-tenant')}` };
  }
  const db = await openConfiguredDatabase(loadConfig(env).database);
  try {
    const { tenant, user } = await createTenantWithAdmin(db, new Date(), parsed.data, createPasswordHasher().hashSync(parsed.data.password));
    return { code: 0, out: JSON.stringify({ tenant_id: tenant.id, rfc: tenant.rfc, user_id: user.id, email: user.email, role: user.role }) };
  } catch (err) {
    if (err instanceof ServiceError) return { code: 1, out: `create-tenant refused: ${err.message}` };
    throw err;
  } finally {
    await closeDatabase(db);
  }
}

/** Prints a JSON summary; a refused backup or restore (exit 1) says why and changes nothing. */
function backupOrRestore(command: 'backup' | 'restore', rest: string[], env: Env): Result {
  const [file] = rest;
  if (!file || rest.length !== 1) return { code: 2, out: usageOf(command) };
  const config = loadConfig(env);
  const refused = fileCopyRefusal(config.database, command);
  if (refused) return { code: 1, out: refused };
  try {
    const summary =
      command === 'backup' ? backupDatabase(config.databasePath, resolve(file)) : restoreDatabase(resolve(file), config.databasePath, config.masterKey);
    const note =
      command === 'backup'
        ? 'Keep MASTER_KEY (or DATA_DIR/master-key) with it: the CSD private keys inside are sealed with it.'
        : 'Start the service: pending migrations apply at start.';
    return { code: 0, out: `${JSON.stringify(summary)}\n${note}` };
  } catch (err) {
    if (err instanceof BackupError) return { code: 1, out: `${command} refused: ${err.message}` };
    throw err;
  }
}

async function listJobs(status: string, env: Env): Promise<Result> {
  if (!(JOB_STATUSES as readonly string[]).includes(status)) return { code: 2, out: usageOf('jobs') };
  const db = await openConfiguredDatabase(loadConfig(env).database);
  try {
    const rows = await jobsInStatus(db, status as JobStatus, 100);
    return { code: 0, out: rows.map((r) => JSON.stringify(r)).join('\n') || `no ${status} jobs` };
  } finally {
    await closeDatabase(db);
  }
}

/** Runs one command, prints its answer and exits with its code. */
export async function main(args: string[]): Promise<never> {
  try {
    const { code, out } = await runCli(args);
    (code === 0 ? console.log : console.error)(out);
    process.exit(code);
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  }
}

if (import.meta.main) await main(process.argv.slice(2));
