/**
 * Soak (issue 11): the real server process (src/index.ts) on a fresh DATA_DIR, two tenants set up through the API
 * (CSD, sk_test_ key, a `*` webhook to a receiver in its own process), their rate limit lifted with the operator
 * CLI, then a steady open-loop rate of mixed traffic for `--seconds`: stamp (201), stamp queued with
 * `X-Sandbox-Scenario: pac_unavailable` (202, stamped by the worker), list, get, XML, PDF, cancel, delivery history.
 * Every `--sample` seconds a row: requests, errors, p50/p99/max latency of that window, server RSS
 * (/proc/<pid>/status VmRSS), WAL size, queue depth and running jobs (GET /health), webhooks received. At the end
 * the queue drains, the server stops (SIGTERM) and the database is checked: every 201/202 exists and ends vigente
 * (or cancelado when we cancelled it), no UUID twice, one cfdi.timbrado per stamp, every event delivered and seen
 * by the receiver, `PRAGMA integrity_check`.
 *
 *   bun bench/soak.ts [--seconds 600] [--rate 100] [--sample 10] [--keep] [--heap] [--mix stamp=80,pdf=20]
 *
 * Latency is measured from each request's scheduled send time (open loop: a slow answer does not slow the
 * arrivals, so queueing shows up in the figures instead of being hidden). Any 5xx, any status other than the one
 * the operation expects, a network error or a timeout (30 s) is an error. The last column is the machine's load
 * average: on a shared machine, other people's work shows in the p99.
 *
 * `--heap` runs the server through bench/servers/heap-probe.ts (src/index.ts plus a heap probe): a JS heap column,
 * and a heap census after a forced full GC before the traffic, at warm-up and after the drain (the GC at warm-up
 * pauses the server once: a p99 spike in the next row). `--mix stamp=80,pdf=20` replaces the mix of operations.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli } from '../src/cli.ts';
import { INVOICE } from './invoice.ts';
import { spawnReady } from './servers/spawn.ts';

const ROOT = new URL('..', import.meta.url).pathname;

// ---------------------------------------------------------------------------------------------------------------
// The server process

export interface Api {
  proc: Bun.Subprocess<'ignore', 'pipe', 'pipe'>;
  base: string;
  /** warn and error lines the server logged, and the last few of them. */
  logs: { warn: number; error: number; samples: string[] };
  stderr(): string;
  /** With bench/servers/heap-probe.ts: its latest heap line, and the latest after a forced GC (SIGUSR2). */
  heap: { last?: HeapLine; afterGc?: HeapLine };
}

export interface HeapLine {
  heap_mb: number;
  capacity_mb: number;
  extra_mb: number;
  objects: number;
  rss_mb: number;
  types?: Record<string, number>;
}

/** Starts src/index.ts on PORT=0 and resolves with its base URL once it logs "listening"; keeps counting warn/error lines. */
export async function startApi(dataDir: string, env: Record<string, string> = {}, { script = 'src/index.ts' } = {}): Promise<Api> {
  // BENCH_PROFILE=<folder>: each server writes its CPU profile there when it stops (Bun's --cpu-prof, and a Markdown summary).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-md', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const proc = Bun.spawn([process.execPath, ...profile, script], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', JWT_SECRET: '', MASTER_KEY: '', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const logs = { warn: 0, error: 0, samples: [] as string[] };
  let stderr = '';
  const heap: Api['heap'] = {};
  void (async () => {
    const decoder = new TextDecoder();
    let rest = '';
    for await (const chunk of proc.stderr) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith('{"heap"')) {
          const h = JSON.parse(line).heap as HeapLine;
          heap.last = h;
          if (h.types) heap.afterGc = h;
        } else stderr = (stderr + line + '\n').slice(-20_000);
      }
    }
  })();
  const listening = Promise.withResolvers<string>();
  void (async () => {
    const decoder = new TextDecoder();
    let rest = '';
    for await (const chunk of proc.stdout) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        if (line.includes('"level":"warn"') || line.includes('"level":"error"')) {
          if (line.includes('"level":"warn"')) logs.warn++;
          else logs.error++;
          logs.samples.push(line.slice(0, 600));
          if (logs.samples.length > 10) logs.samples.shift();
        } else if (line.includes('"msg":"listening"')) listening.resolve(line);
      }
    }
    listening.reject(new Error(`server exited before listening: ${stderr}`));
  })();
  const timeout = setTimeout(() => listening.reject(new Error(`server did not start within 30 s: ${stderr}`)), 30_000);
  try {
    const line = await listening.promise;
    return { proc, base: `http://127.0.0.1:${JSON.parse(line).port}/api/v1`, logs, stderr: () => stderr, heap };
  } catch (err) {
    proc.kill('SIGKILL');
    throw err;
  } finally {
    clearTimeout(timeout);
  }
}

/** SIGTERM (graceful shutdown), SIGKILL after `graceMs`; resolves with the exit code. */
export async function stopApi(api: Api, graceMs = 20_000): Promise<number | null> {
  api.proc.kill('SIGTERM');
  const killer = setTimeout(() => api.proc.kill('SIGKILL'), graceMs);
  const code = await api.proc.exited;
  clearTimeout(killer);
  return code;
}

/** Resident set size of a process in MiB (VmRSS), or NaN once it is gone. */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

const fileMb = (path: string) => (existsSync(path) ? statSync(path).size / 1024 / 1024 : 0);

// ---------------------------------------------------------------------------------------------------------------
// Tenants, webhooks, receiver

export interface TenantSpec {
  name: string;
  tenant: { rfc: string; nombre: string; regimen_fiscal: string; codigo_postal: string };
  csd: { folder: string; base: string };
}

/** Two SAT test taxpayers with their test CSDs (tests/fixtures/csd): a persona moral and a persona física. */
export const SOAK_TENANTS: TenantSpec[] = [
  {
    name: 'eku',
    tenant: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', codigo_postal: '42501' },
    csd: { folder: 'EKU9003173C9_CSD', base: 'EKU9003173C9' },
  },
  {
    name: 'funk',
    tenant: { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '612', codigo_postal: '01000' },
    csd: { folder: 'FUNK671228PH6_CSD', base: 'FUNK671228PH6' },
  },
];

export interface SoakTenant {
  name: string;
  /** The tenant's admin: its sign-in (for the console). */
  email: string;
  password: string;
  tenantId: string;
  key: string;
  webhookId: string;
}

async function expectStatus(res: Response, status: number, what: string): Promise<any> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * Registers the tenant, creates an sk_test_ key, uploads its CSD and (with a receiver) subscribes a `*` webhook to
 * `${receiverUrl}/hook/<name>`, whose secret the receiver is given so it checks every signature.
 */
export async function setUpTenant(base: string, receiverUrl: string | undefined, spec: TenantSpec): Promise<SoakTenant> {
  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const email = `${spec.name}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const password = 'a-long-password-1';
  const reg = await expectStatus(
    await post('/auth/register', {
      email,
      password,
      nombre: spec.name,
      tenant: spec.tenant,
    }),
    201,
    'register',
  );
  const key = (await expectStatus(await post('/api-keys', { name: 'soak' }, reg.access_token), 201, 'api key')).key as string;
  const dir = join(ROOT, 'tests/fixtures/csd', spec.csd.folder);
  const form = new FormData();
  form.append('cer', new Blob([readFileSync(join(dir, `${spec.csd.base}.cer`))]), 'csd.cer');
  form.append('key', new Blob([readFileSync(join(dir, `${spec.csd.base}.key`))]), 'csd.key');
  form.append('password', readFileSync(join(dir, 'password.txt'), 'utf8').trim());
  await expectStatus(await fetch(`${base}/csds`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form }), 201, 'CSD upload');
  if (!receiverUrl) return { name: spec.name, email, password, tenantId: reg.tenant.id, key, webhookId: '' };
  const hook = await expectStatus(await post('/webhooks', { url: `${receiverUrl}/hook/${spec.name}`, events: ['*'] }, key), 201, 'webhook');
  await fetch(`${receiverUrl}/secret`, { method: 'POST', body: JSON.stringify({ name: spec.name, secret: hook.secret }) });
  return { name: spec.name, email, password, tenantId: reg.tenant.id, key, webhookId: hook.id };
}

/**
 * The operator lifts the tenants' rate limit (run while the server is stopped, so no tenant cache holds the old
 * plan); `env` names another database (DATABASE_URL).
 */
export async function liftRateLimits(dataDir: string, tenants: SoakTenant[], env: Record<string, string> = {}): Promise<void> {
  for (const t of tenants) {
    const r = await runCli(['set-plan', t.tenantId, 'enterprise', '1000000'], { DATA_DIR: dataDir, ...env });
    if (r.code !== 0) throw new Error(`set-plan: ${r.out}`);
  }
}

export interface Receiver {
  proc: Bun.Subprocess;
  url: string;
  stats(): Promise<{ deliveries: number; unique: number; repeats: number; bad_signatures: number; by_event: Record<string, number> }>;
  ids(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const { proc, ready } = await spawnReady<{ url: string }>([join(ROOT, 'bench/servers/soak-receiver.ts')], 'stdout');
  return {
    proc,
    url: ready.url,
    stats: async () => (await fetch(`${ready.url}/stats`)).json() as any,
    ids: async () => (await fetch(`${ready.url}/ids`)).json() as any,
    stop: async () => {
      proc.kill();
      await proc.exited;
    },
  };
}

/** Alternately the benchmark's 10-concepto invoice and a one-concepto one; `marker` goes in the first concepto's NoIdentificacion. */
export function invoiceBody(n: number, marker?: string): Record<string, unknown> {
  const conceptos =
    n % 2 === 0 ? INVOICE.conceptos : [{ ...INVOICE.conceptos[0]!, descripcion: 'Servicio', cantidad: 1, valor_unitario: `${(n % 9000) + 100}.50` }];
  return { ...INVOICE, conceptos: marker ? [{ ...conceptos[0]!, no_identificacion: marker }, ...conceptos.slice(1)] : conceptos };
}

// ---------------------------------------------------------------------------------------------------------------
// Statistics

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}
const r1 = (n: number) => Math.round(n * 10) / 10;

/** mulberry32: a seeded generator, so two runs draw the same sequence of operations. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The soak

export type Op = 'stamp' | 'stamp_queued' | 'list' | 'get' | 'xml' | 'pdf' | 'cancel' | 'deliveries';
/** Share of the requests, in percent. */
export const MIX: [Op, number][] = [
  ['stamp', 25],
  ['stamp_queued', 5],
  ['list', 17],
  ['get', 22],
  ['xml', 15],
  ['pdf', 8],
  ['cancel', 3],
  ['deliveries', 5],
];
const EXPECTED: Record<Op, number> = { stamp: 201, stamp_queued: 202, list: 200, get: 200, xml: 200, pdf: 200, cancel: 200, deliveries: 200 };

export interface SoakOptions {
  seconds: number;
  /** Requests per second (arrivals, whatever the answers take). */
  rate: number;
  /** Seconds per row of the table. */
  sampleSeconds?: number;
  /** RSS "after warm-up" is read at the first row at or past this many seconds (default: a quarter of the run, at most 60 s). */
  warmupSeconds?: number;
  /** Seconds to wait after the traffic for the queue and the webhooks to drain. */
  drainSeconds?: number;
  seed?: number;
  /** Keep DATA_DIR (its path is in the summary). */
  keep?: boolean;
  /** Run the server through bench/servers/heap-probe.ts: JS heap per row, and object types before/after (forced GC). */
  heap?: boolean;
  /** Replaces MIX (shares in percent), e.g. to find which operation a leak follows. */
  mix?: [Op, number][];
  /** Where rows and notes are printed (default console.log). */
  print?: (line: string) => void;
}

export interface Window {
  t: number;
  requests: number;
  errors: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  in_flight: number;
  rss_mb: number;
  /** JSC heap size (only with `heap`). */
  heap_mb: number;
  wal_mb: number;
  queue_depth: number;
  queue_running: number;
  webhooks_received: number;
  /** The machine's 1-minute load average (other people's work shows here). */
  load1: number;
}

export interface SoakSummary {
  seconds: number;
  rate: number;
  bun: string;
  cores: number;
  data_dir: string;
  requests: number;
  achieved_rate: number;
  errors: number;
  error_samples: string[];
  /** Connection resets retried once (not errors): when and on which operation. */
  resets_retried: Reset[];
  latency_ms: { p50: number; p99: number; max: number };
  /** After warm-up; errors over the whole run. */
  by_op: Record<string, { count: number; errors: number; p50_ms: number; p99_ms: number }>;
  windows: Window[];
  rss_mb: { start: number; warm: number; end: number; after_drain: number; max: number };
  /** With `heap`, each after a forced full GC: before the traffic, at warm-up, after the drain; the object types that grew most since warm-up. */
  heap?: { before: HeapLine; warm: HeapLine; after: HeapLine; grew_since_warm: Record<string, number> };
  wal_mb: { max: number; end_of_traffic: number };
  db_mb: number;
  queue: { max_depth: number; max_running: number };
  invoices: { stamped_201: number; queued_202: number; cancelled: number; in_db: number };
  webhooks: {
    events: number;
    deliveries: number;
    received_unique: number;
    received_total: number;
    repeats: number;
    bad_signatures: number;
    by_event: Record<string, number>;
  };
  drain_seconds: number;
  server_log: { warn: number; error: number; samples: string[] };
  exit_code: number | null;
  checks: Checks;
}

export interface Checks {
  integrity: string;
  /** Acknowledged (201/202) invoices not in the database. */
  missing: string[];
  /** Acknowledged invoices not vigente (or cancelado, when we cancelled them), or a 201 whose UUID changed. */
  wrong_status: string[];
  /** Invoices in the database that no client was told about (none expected without faults). */
  unacknowledged: number;
  duplicate_uuids: number;
  /** Stamped invoices without exactly one cfdi.timbrado event. */
  timbrado_not_once: number;
  events_without_delivery: number;
  deliveries_not_delivered: number;
  deliveries_not_received: number;
  jobs_not_done: number;
  jobs_failed: number;
}

export interface Reset {
  t: number;
  op: Op;
  message: string;
  retry_status?: number;
  replayed?: boolean;
}

interface Ack {
  tenant: string;
  code: 201 | 202;
  uuid?: string;
}

interface TenantState extends SoakTenant {
  stamped: { id: string; uuid: string }[];
  cancellable: { id: string; uuid: string }[];
  all: string[];
}

/** Runs the whole soak and returns its figures; throws only when set-up fails. */
export async function runSoak(o: SoakOptions): Promise<SoakSummary> {
  const print = o.print ?? ((s: string) => console.log(s));
  const sampleMs = (o.sampleSeconds ?? 10) * 1000;
  const warmupS = o.warmupSeconds ?? Math.min(60, o.seconds / 4);
  const random = seeded(o.seed ?? 11);
  const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-soak-'));
  const receiver = await startReceiver();
  const env = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '0,1,2,5,10,30,60' };
  let api: Api | undefined;
  try {
    // Set-up run, then the operator raises the plans and the service starts again on the same DATA_DIR.
    const script = o.heap ? 'bench/servers/heap-probe.ts' : 'src/index.ts';
    const setup = await startApi(dataDir, env, { script });
    const tenants: SoakTenant[] = [];
    for (const spec of SOAK_TENANTS) tenants.push(await setUpTenant(setup.base, receiver.url, spec));
    await stopApi(setup);
    await liftRateLimits(dataDir, tenants);
    api = await startApi(dataDir, env, { script });
    const server = api;
    const pid = server.proc.pid;
    const wal = join(dataDir, 'cfdi.sqlite-wal');
    const states: TenantState[] = tenants.map((t) => ({ ...t, stamped: [], cancellable: [], all: [] }));
    const acks = new Map<string, Ack>();
    const cancelled = new Set<string>();

    // Per window and overall.
    let window: number[] = [];
    let windowErrors = 0;
    const all: number[] = [];
    const byOp = new Map<Op, { lat: number[]; errors: number }>(MIX.map(([op]) => [op, { lat: [], errors: 0 }]));
    const errorSamples: string[] = [];
    let errors = 0;
    let inFlight = 0;
    let n = 0;
    const resets: Reset[] = [];
    let t0 = performance.now();

    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
    const mix = o.mix ?? MIX;
    const mixTotal = mix.reduce((a, [, w]) => a + w, 0);
    const drawOp = (): Op => {
      let x = random() * mixTotal;
      for (const [op, w] of mix) if ((x -= w) < 0) return op;
      return 'list';
    };

    const fail = (op: Op, what: string) => {
      errors++;
      windowErrors++;
      byOp.get(op)!.errors++;
      if (errorSamples.length < 20) errorSamples.push(`${op}: ${what}`.slice(0, 400));
    };

    /**
     * One request; returns the operation actually done (an empty pool falls back to a list). A connection reset is
     * retried once (POSTs carry an Idempotency-Key, so a retry cannot issue twice) and listed in `resets_retried`
     * with whether the server had recorded the first attempt; any other network error, or a second reset, is an
     * error. (Two resets on POST /cfdis were seen in one 18,000-request run on a loaded machine, neither recorded.)
     */
    async function perform(wanted: Op, t: TenantState): Promise<Op> {
      let op = wanted;
      if ((op === 'get' && t.all.length === 0) || ((op === 'xml' || op === 'pdf') && t.stamped.length === 0) || (op === 'cancel' && t.cancellable.length === 0))
        op = 'list';
      const auth = { authorization: `Bearer ${t.key}` };
      const seq = n++;
      const post = (body: unknown, extra: Record<string, string> = {}): RequestInit => ({
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': `soak-${seq}`, ...extra },
        body: JSON.stringify(body),
      });
      let url: string;
      let init: RequestInit = { headers: auth };
      let target: { id: string; uuid: string } | undefined;
      switch (op) {
        case 'stamp':
        case 'stamp_queued':
          url = `${server.base}/cfdis`;
          init = post(invoiceBody(seq), op === 'stamp_queued' ? { 'x-sandbox-scenario': 'pac_unavailable' } : {});
          break;
        case 'list':
          url = `${server.base}/cfdis?limit=20`;
          break;
        case 'get':
          url = `${server.base}/cfdis/${pick(t.all)}`;
          break;
        case 'xml':
        case 'pdf':
          url = `${server.base}/cfdis/${pick(t.stamped).uuid}/${op}`;
          break;
        case 'cancel': {
          const i = Math.floor(random() * t.cancellable.length);
          target = t.cancellable[i]!;
          t.cancellable.splice(i, 1);
          url = `${server.base}/cfdis/${target.id}/cancel`;
          init = post({ motivo: '02' });
          break;
        }
        case 'deliveries':
          url = `${server.base}/webhooks/${t.webhookId}/deliveries?limit=20`;
          break;
      }
      let res: Response;
      let bytes: Uint8Array;
      let reset: Reset | undefined;
      for (let attempt = 0, waits = 0; ; attempt++) {
        try {
          res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
          bytes = new Uint8Array(await res.arrayBuffer());
          // The tenant's share of the PDF pool is busy (a machine shared with other work): wait as told, as a client does.
          if (op === 'pdf' && (res.status === 429 || res.status === 503) && waits++ < 5) {
            await Bun.sleep(Number(res.headers.get('retry-after') ?? 2) * 1000);
            continue;
          }
          break;
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          if (attempt > 0 || !/ECONNRESET|socket connection was closed/i.test(message)) throw err;
          reset = { t: Math.round((performance.now() - t0) / 1000), op, message: message.slice(0, 120) };
          resets.push(reset);
        }
      }
      // A replayed answer means the first attempt had reached the server and been recorded; the answer was lost.
      if (reset) Object.assign(reset, { retry_status: res.status, replayed: res.headers.get('idempotent-replayed') === 'true' });
      if (res.status !== EXPECTED[op]) {
        fail(op, `${res.status} ${new TextDecoder().decode(bytes.slice(0, 300))}`);
        return op;
      }
      if (op === 'stamp' || op === 'stamp_queued') {
        const body = JSON.parse(new TextDecoder().decode(bytes));
        acks.set(body.id, { tenant: t.name, code: res.status as 201 | 202, uuid: body.uuid ?? undefined });
        t.all.push(body.id);
        if (res.status === 201) {
          t.stamped.push({ id: body.id, uuid: body.uuid });
          t.cancellable.push({ id: body.id, uuid: body.uuid });
        }
      } else if (op === 'cancel') cancelled.add(target!.id);
      else if (op === 'pdf' && new TextDecoder().decode(bytes.slice(0, 4)) !== '%PDF') fail(op, 'not a PDF');
      return op;
    }

    const fire = (scheduled: number) => {
      const wanted = drawOp();
      const t = pick(states);
      inFlight++;
      perform(wanted, t)
        .then((op) => {
          const ms = performance.now() - scheduled;
          window.push(ms);
          all.push(ms);
          // Per operation after warm-up only: while the pools are empty every read falls back to a list, so the
          // lists would carry the first invoice's pause (the SAT catalogs are parsed on first use).
          if (scheduled - t0 >= warmupS * 1000) byOp.get(op)!.lat.push(ms);
        })
        .catch((err) => fail(wanted, `network: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => inFlight--);
    };

    const health = async () => {
      try {
        const h: any = await (await fetch(`${server.base}/health`)).json();
        const q = h.details?.queue ?? {};
        return { depth: Number(q.depth ?? NaN), running: Number(q.running ?? NaN), ok: h.status === 'ok' };
      } catch {
        return { depth: NaN, running: NaN, ok: false };
      }
    };

    const windows: Window[] = [];
    /** SIGUSR2 to the heap probe: a full GC, then its heap line with object types. */
    const gcNow = async (): Promise<HeapLine | undefined> => {
      if (!o.heap) return undefined;
      const before = server.heap.afterGc;
      server.proc.kill('SIGUSR2');
      for (let i = 0; i < 100 && server.heap.afterGc === before; i++) await Bun.sleep(50);
      return server.heap.afterGc;
    };
    const heapBefore = await gcNow();
    let heapWarm: HeapLine | undefined;
    const rssStart = rssMb(pid);
    print(
      `soak: ${o.seconds} s at ${o.rate} req/s, rows every ${sampleMs / 1000} s; server pid ${pid}, DATA_DIR ${dataDir}; Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; RSS at start ${r1(rssStart)} MiB`,
    );
    print(`    t |  req | err | p50 ms | p99 ms | max ms | in flight | RSS MiB |${o.heap ? ' heap MiB |' : ''} WAL MiB | queue | running | webhooks | load`);
    t0 = performance.now();
    let sampling = false;
    const sample = async () => {
      if (sampling) return;
      sampling = true;
      const lat = window.sort((a, b) => a - b);
      const errs = windowErrors;
      window = [];
      windowErrors = 0;
      const [h, r] = await Promise.all([health(), receiver.stats()]);
      const row: Window = {
        t: Math.round((performance.now() - t0) / 1000),
        requests: lat.length + errs,
        errors: errs,
        p50_ms: r1(percentile(lat, 0.5)),
        p99_ms: r1(percentile(lat, 0.99)),
        max_ms: r1(lat.at(-1) ?? NaN),
        in_flight: inFlight,
        rss_mb: r1(rssMb(pid)),
        heap_mb: r1(server.heap.last?.heap_mb ?? NaN),
        wal_mb: r1(fileMb(wal)),
        queue_depth: h.depth,
        queue_running: h.running,
        webhooks_received: r.unique,
        load1: loadavg()[0]!,
      };
      if (!h.ok) fail('list', `health not ok at t=${row.t}`);
      if (o.heap && !heapWarm && row.t >= warmupS) heapWarm = await gcNow();
      windows.push(row);
      print(
        `${String(row.t).padStart(5)} | ${String(row.requests).padStart(4)} | ${String(row.errors).padStart(3)} | ${String(row.p50_ms).padStart(6)} | ${String(row.p99_ms).padStart(6)} | ${String(row.max_ms).padStart(6)} | ${String(row.in_flight).padStart(9)} | ${String(row.rss_mb).padStart(7)} |${o.heap ? ` ${String(row.heap_mb).padStart(8)} |` : ''} ${String(row.wal_mb).padStart(7)} | ${String(row.queue_depth).padStart(5)} | ${String(row.queue_running).padStart(7)} | ${String(row.webhooks_received).padStart(8)} | ${row.load1.toFixed(2)}`,
      );
      sampling = false;
    };
    const sampler = setInterval(() => void sample(), sampleMs);

    // Open loop: request i is due at t0 + i / rate, sent when due however many are still in flight.
    const interval = 1000 / o.rate;
    let sent = 0;
    for (;;) {
      const elapsed = performance.now() - t0;
      if (elapsed >= o.seconds * 1000) break;
      const due = Math.floor(elapsed / interval) + 1;
      while (sent < due) {
        if (inFlight >= 2000) fail('list', 'client backlog: 2000 requests in flight, request not sent');
        else fire(t0 + sent * interval);
        sent++;
      }
      await Bun.sleep(Math.max(1, t0 + sent * interval - performance.now()));
    }
    const trafficS = (performance.now() - t0) / 1000;
    for (let i = 0; i < 600 && inFlight > 0; i++) await Bun.sleep(100);
    clearInterval(sampler);
    while (sampling) await Bun.sleep(10);
    if (window.length + windowErrors > 0) await sample();
    const rssEnd = rssMb(pid);
    const walEnd = fileMb(wal);

    // Drain: the queue empties and the receiver has every delivery the database holds.
    const drainStart = performance.now();
    const watch = new Database(join(dataDir, 'cfdi.sqlite'), { readonly: true });
    const count = (sql: string) => (watch.prepare(sql).get() as { n: number }).n;
    for (;;) {
      const h = await health();
      const r = await receiver.stats();
      if (h.depth === 0 && h.running === 0 && r.unique >= count('select count(*) n from webhook_deliveries')) break;
      if (performance.now() - drainStart > (o.drainSeconds ?? 120) * 1000) {
        print(`drain: gave up after ${o.drainSeconds ?? 120} s (queue ${h.depth}, running ${h.running}, received ${r.unique})`);
        break;
      }
      await Bun.sleep(250);
    }
    watch.close();
    const drainS = (performance.now() - drainStart) / 1000;
    const rssAfterDrain = rssMb(pid);
    const heapAfter = await gcNow();
    const received = await receiver.stats();
    const receivedIds = await receiver.ids();
    const exitCode = await stopApi(server);
    api = undefined;

    const checks = checkDatabase(join(dataDir, 'cfdi.sqlite'), acks, cancelled, receivedIds);
    const db = new Database(join(dataDir, 'cfdi.sqlite'), { readonly: true });
    const events = (db.prepare('select count(*) n from events').get() as { n: number }).n;
    const deliveries = (db.prepare('select count(*) n from webhook_deliveries').get() as { n: number }).n;
    const inDb = (db.prepare('select count(*) n from cfdis').get() as { n: number }).n;
    db.close();
    const dbMb = fileMb(join(dataDir, 'cfdi.sqlite'));

    all.sort((a, b) => a - b);
    const warm = windows.find((w) => w.t >= warmupS) ?? windows.at(-1);
    const summary: SoakSummary = {
      seconds: o.seconds,
      rate: o.rate,
      bun: Bun.version,
      cores: navigator.hardwareConcurrency,
      data_dir: dataDir,
      requests: all.length + errors,
      achieved_rate: r1((all.length + errors) / trafficS),
      errors,
      error_samples: errorSamples,
      resets_retried: resets,
      latency_ms: { p50: r1(percentile(all, 0.5)), p99: r1(percentile(all, 0.99)), max: r1(all.at(-1) ?? NaN) },
      by_op: Object.fromEntries(
        [...byOp].map(([op, s]) => {
          const lat = s.lat.sort((a, b) => a - b);
          return [op, { count: lat.length, errors: s.errors, p50_ms: r1(percentile(lat, 0.5)), p99_ms: r1(percentile(lat, 0.99)) }];
        }),
      ),
      windows,
      rss_mb: {
        start: r1(rssStart),
        warm: warm?.rss_mb ?? NaN,
        end: r1(rssEnd),
        after_drain: r1(rssAfterDrain),
        max: Math.max(...windows.map((w) => w.rss_mb)),
      },
      heap:
        heapBefore && heapWarm && heapAfter
          ? { before: heapBefore, warm: heapWarm, after: heapAfter, grew_since_warm: grewMost(heapWarm.types ?? {}, heapAfter.types ?? {}) }
          : undefined,
      wal_mb: { max: Math.max(0, ...windows.map((w) => w.wal_mb)), end_of_traffic: r1(walEnd) },
      db_mb: r1(dbMb),
      queue: { max_depth: Math.max(0, ...windows.map((w) => w.queue_depth)), max_running: Math.max(0, ...windows.map((w) => w.queue_running)) },
      invoices: {
        stamped_201: [...acks.values()].filter((a) => a.code === 201).length,
        queued_202: [...acks.values()].filter((a) => a.code === 202).length,
        cancelled: cancelled.size,
        in_db: inDb,
      },
      webhooks: {
        events,
        deliveries,
        received_unique: received.unique,
        received_total: received.deliveries,
        repeats: received.repeats,
        bad_signatures: received.bad_signatures,
        by_event: received.by_event,
      },
      drain_seconds: r1(drainS),
      server_log: server.logs,
      exit_code: exitCode,
      checks,
    };
    return summary;
  } finally {
    if (api) {
      api.proc.kill('SIGKILL');
      await api.proc.exited;
    }
    await receiver.stop();
    if (!o.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Events recorded after a webhook of their tenant and environment existed, without a delivery to it (outbox fan-out). */
function eventsWithoutDelivery(db: Database.Database): number {
  const delivered = new Set(db.prepare("select event_id || ' ' || webhook_id from webhook_deliveries").pluck().all() as string[]);
  const pairs = db
    .prepare(
      'select e.id event_id, w.id webhook_id from events e join webhooks w on w.tenant_id = e.tenant_id and w.environment = e.environment and e.created_at >= w.created_at',
    )
    .all() as { event_id: string; webhook_id: string }[];
  return pairs.filter((p) => !delivered.has(`${p.event_id} ${p.webhook_id}`)).length;
}

/** The object types whose count grew most between two heap snapshots. */
function grewMost(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12),
  );
}

/**
 * After the run, on the stopped server's database: the invariants a client and a webhook receiver rely on.
 * `acks`: every 201/202 a client saw (by cfdi_ id); `cancelled`: the ids whose cancellation answered 200;
 * `receivedIds`: delivery ids the receiver got.
 */
export function checkDatabase(
  path: string,
  acks: Map<string, Ack>,
  cancelled: Set<string>,
  receivedIds: Record<string, number>,
  mayBeCancelled: Set<string> = cancelled,
): Checks {
  const db = new Database(path, { readonly: true });
  try {
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const byId = db.prepare('select status, uuid from cfdis where id = ?');
    const missing: string[] = [];
    const wrong: string[] = [];
    for (const [id, ack] of acks) {
      const row = byId.get(id) as { status: string; uuid: string | null } | undefined;
      if (!row) missing.push(id);
      else if (cancelled.has(id) ? row.status !== 'cancelado' : !(row.status === 'vigente' || (row.status === 'cancelado' && mayBeCancelled.has(id))))
        wrong.push(`${id} (${ack.code}) is ${row.status}`);
      else if (ack.uuid && row.uuid !== ack.uuid) wrong.push(`${id}: answered UUID ${ack.uuid}, stored ${row.uuid}`);
    }
    const deliveryIds = db.prepare('select id from webhook_deliveries').pluck().all() as string[];
    return {
      integrity: (db.prepare('pragma integrity_check').pluck().all() as string[]).join('; '),
      missing,
      wrong_status: wrong,
      unacknowledged: n('select count(*) n from cfdis') - acks.size + missing.length,
      duplicate_uuids: n('select count(*) n from (select uuid from cfdis where uuid is not null group by uuid having count(*) > 1)'),
      timbrado_not_once: n(`
        select count(*) n from cfdis c
        left join (select json_extract(data, '$.cfdi_id') cfdi_id, count(*) k from events where type = 'cfdi.timbrado' group by 1) t on t.cfdi_id = c.id
        where c.uuid is not null and coalesce(t.k, 0) <> 1`),
      events_without_delivery: eventsWithoutDelivery(db),
      deliveries_not_delivered: n("select count(*) n from webhook_deliveries where state <> 'entregado'"),
      deliveries_not_received: deliveryIds.filter((id) => !receivedIds[id]).length,
      jobs_not_done: n("select count(*) n from jobs where status in ('queued', 'running')"),
      jobs_failed: n("select count(*) n from jobs where status = 'failed'"),
    };
  } finally {
    db.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '600' },
      rate: { type: 'string', default: '100' },
      sample: { type: 'string', default: '10' },
      keep: { type: 'boolean', default: false },
      heap: { type: 'boolean', default: false },
      mix: { type: 'string' },
    },
  });
  const mix = values.mix
    ?.split(',')
    .map((p) => p.split('=') as [Op, string])
    .map(([op, w]) => [op, Number(w)] as [Op, number]);
  const summary = await runSoak({
    seconds: Number(values.seconds),
    rate: Number(values.rate),
    sampleSeconds: Number(values.sample),
    keep: values.keep,
    heap: values.heap,
    mix,
  });
  const { windows: _rows, ...rest } = summary;
  console.log(JSON.stringify(rest, null, 2));
  const c = summary.checks;
  const ok =
    summary.errors === 0 &&
    summary.exit_code === 0 &&
    c.integrity === 'ok' &&
    c.missing.length === 0 &&
    c.wrong_status.length === 0 &&
    c.unacknowledged === 0 &&
    c.duplicate_uuids === 0 &&
    c.timbrado_not_once === 0 &&
    c.events_without_delivery === 0 &&
    c.deliveries_not_delivered === 0 &&
    c.deliveries_not_received === 0 &&
    c.jobs_not_done === 0 &&
    c.jobs_failed === 0 &&
    summary.webhooks.bad_signatures === 0;
  console.log(ok ? 'soak: PASS' : 'soak: FAIL');
  process.exit(ok ? 0 : 1);
}
