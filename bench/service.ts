/** The service as `npm start` runs it (src/index.ts), for the benchmarks that measure it over HTTP. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../src/cli.ts';
import { SOAK_TENANTS, setUpTenant, startApi, stopApi } from './soak.ts';

/**
 * src/index.ts on a fresh DATA_DIR with one issuing tenant (EKU9003173C9, its test CSD and an sk_test_ key) whose
 * limit is lifted; `env` on top of the defaults (WORKERS unset: one process per two cores).
 */
export async function startService(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'cfdi-bench-service-'));
  const setup = await startApi(dir, { ...env, WORKERS: '1' });
  const tenant = await setUpTenant(setup.base, undefined, SOAK_TENANTS[0]!);
  await stopApi(setup);
  // While no process runs: the plan is read at start (and cached).
  const plan = await runCli(['set-plan', tenant.tenantId, 'enterprise', '100000000'], { DATA_DIR: dir });
  if (plan.code !== 0) throw new Error(`set-plan: ${plan.out}`);
  const api = await startApi(dir, env);
  return {
    url: api.base,
    key: tenant.key,
    /** The tenant admin's sign-in. */
    login: { email: tenant.email, password: tenant.password },
    headers: { authorization: `Bearer ${tenant.key}` },
    pid: api.proc.pid,
    cpuSeconds: () => treeCpuSeconds(api.proc.pid),
    stop: async () => {
      await stopApi(api);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * User + system CPU seconds of a process and its children (the supervisor and its workers), Linux only (NaN
 * elsewhere): divided by the requests answered meanwhile, the service's CPU per request, which does not depend on
 * how much of a shared machine it got.
 */
export function treeCpuSeconds(pid: number): number {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100 + children.reduce((sum, child) => sum + treeCpuSeconds(child), 0);
  } catch {
    return Number.NaN;
  }
}
