import { availableParallelism } from 'node:os';
import type { Subprocess } from 'bun';
import type { RateDecision, RateLimits } from '../gateway/rate-limit.ts';
import type { Heartbeat } from '../jobs/scheduler.ts';
import { type Logger, writeLogLine } from '../lib/logger.ts';

/**
 * The supervised shape's transport (src/topology/supervised.ts). WORKERS > 1: a supervisor (src/index.ts, with no WORKER_ENV) does the start-up work once and runs the scheduler;
 * N worker processes of the same program serve HTTP on one port (SO_REUSEPORT). What must stay one across them goes
 * through the supervisor over IPC: the rate counters (SQLite), identity-cache drops (SQLite; PostgreSQL has NOTIFY),
 * the scheduler's heartbeat for /health. Workers' stdout is forwarded by the supervisor a whole line at a time, so
 * lines from several processes never interleave mid-line in one pipe.
 */

/** Set in a worker's environment: its number, 1…N. */
const WORKER_ENV = 'CFDI_WORKER';

/** This process's worker number, when it is a worker of a supervisor. */
export function workerNumber(): number | undefined {
  const n = process.env[WORKER_ENV];
  return n ? Number(n) : undefined;
}

interface Budget {
  key: string;
  limit: number;
}

/** Worker → supervisor. */
type Up =
  | { t: 'hello' }
  | { t: 'serving'; port: number }
  | { t: 'hit'; id: number; scope: string; windowMs: number; budgets: Budget[] }
  | { t: 'identity'; id: number; tenantId: string }
  | { t: 'ack'; id: number };

/** Supervisor → worker. */
type Down =
  | { t: 'go' }
  | { t: 'hit'; id: number; decisions: RateDecision[] }
  | { t: 'identity'; id: number; tenantId: string }
  | { t: 'ack'; id: number }
  | { t: 'tick'; at: number | null; intervalMs: number };

/** How long an identity change waits for the other workers to drop their entries before the answer goes out anyway. */
const RELAY_TIMEOUT_MS = 2000;

/** A worker's side: what it asks of and hears from its supervisor. */
export function supervisorLink() {
  const pending = new Map<number, (value: never) => void>();
  let nextId = 0;
  let lastTick: number | null = null;
  let intervalMs = 5000;
  let receiveIdentity: (tenantId: string) => void = () => {};
  const send = (message: Up) => process.send!(message);
  const ask = <T>(message: Up & { id: number }) =>
    new Promise<T>((resolve) => {
      if (!process.connected) return; // orphaned: exiting, see above
      pending.set(message.id, resolve as (value: never) => void);
      send(message);
    });
  const answer = (id: number, value: unknown) => {
    pending.get(id)?.(value as never);
    pending.delete(id);
  };
  process.on('message', (message: Down) => {
    if (message.t === 'go') go.resolve();
    else if (message.t === 'hit') answer(message.id, message.decisions);
    else if (message.t === 'ack') answer(message.id, undefined);
    else if (message.t === 'identity') {
      receiveIdentity(message.tenantId);
      send({ t: 'ack', id: message.id });
    } else if (message.t === 'tick') {
      lastTick = message.at;
      intervalMs = message.intervalMs;
    }
  });
  // The requests still waiting for an answer are left waiting: the process exits at once (onOrphaned), and failing
  // them would answer 500s on connections not yet closed.
  let orphaned: () => void = () => process.exit(0); // still starting: nothing to finish
  process.on('disconnect', () => orphaned());
  // A supervisor that died while this process was still loading closed the channel before anyone listened: check it
  // now, and the parent every second besides (a dead parent's children are handed to another).
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent || !process.connected) orphaned();
  }, 1000).unref();
  if (!process.connected) queueMicrotask(() => orphaned());
  const go = Promise.withResolvers<void>();
  const rateLimits: RateLimits = (scope, windowMs) => ({
    hit: (budgets) => ask<RateDecision[]>({ t: 'hit', id: ++nextId, scope, windowMs, budgets: budgets.map(({ key, limit }) => ({ key, limit })) }),
  });
  const heartbeat: Heartbeat = {
    lastTickAt: () => lastTick,
    get intervalMs() {
      return intervalMs;
    },
  };
  return {
    /** Resolves when the supervisor has done the start-up work (migrations, catalogs, boot work): open the database then. */
    released: () => {
      send({ t: 'hello' });
      return go.promise;
    },
    rateLimits,
    /** The supervisor's scheduler, as last relayed (each tick). */
    heartbeat,
    /** Tells the other processes; resolves once they dropped their entries. */
    announceIdentity: (tenantId: string) => ask<void>({ t: 'identity', id: ++nextId, tenantId }),
    onIdentity(receive: (tenantId: string) => void) {
      receiveIdentity = receive;
    },
    serving: (port: number) => send({ t: 'serving', port }),
    /** The supervisor died (or closed the channel): this worker must not go on serving or writing. */
    onOrphaned(stop: () => void) {
      orphaned = stop;
    },
  };
}

interface Slot {
  n: number;
  proc?: Subprocess<'ignore', 'pipe', 'inherit'>;
  /** Resolves once all its stdout has been forwarded. */
  forwarded?: Promise<void>;
  /** It has loaded and waits for the go (its program's modules load while the supervisor does the start-up work). */
  waiting?: boolean;
  /** When it last reported serving; restarts soon after it back off. */
  servingSince?: number;
  failures: number;
}

export interface Workers {
  /** The port every worker serves on. */
  port: number;
  pids(): number[];
  /** Relays the scheduler's heartbeat to every worker. */
  relayTick(heartbeat: Heartbeat): void;
  /** Tells every worker that a tenant's identity changed; resolves once each dropped its entries. */
  relayIdentity(tenantId: string): Promise<void>;
  /** SIGTERM to each worker (each finishes in flight and closes its database); resolves when all exited. */
  stop(): Promise<void>;
}

/** What the workers need from the supervisor once they serve. */
interface Services {
  rateLimits?: RateLimits;
  dropIdentity?: (tenantId: string) => void;
  heartbeat: Heartbeat;
}

/**
 * Spawns `count` workers for `host`:`port` (0: a free one) at once: they load their program while this process does
 * the start-up work, then wait. `go` lets them open the database and serve, and resolves once every one serves. A
 * worker that exits before then fails the start (the error is the worker's, on stderr); one that dies later is
 * restarted after a backoff. `rateLimits` counts the workers' hits, `dropIdentity` drops this process's entries.
 */
export function spawnWorkers(opts: {
  /** More environment for the workers. */
  env: Record<string, string>;
  count: number;
  host?: string;
  port: number;
  logger: Logger;
}): { go(services: Services): Promise<Workers> } {
  const { logger } = opts;
  let services: Services | undefined;
  // From source: bun <entry> [args]; the executable: <executable> [args] (its argv[1] is its embedded entry).
  const command = [process.execPath, ...process.argv.slice(Bun.isStandaloneExecutable ? 2 : 1)];
  // The machine's PDF threads split among the workers (src/invoices/cfdis/pdf-pool.ts).
  const pdfWorkers = String(Math.max(1, Math.floor(Math.min(2, availableParallelism()) / opts.count)));
  const slots: Slot[] = Array.from({ length: opts.count }, (_, i) => ({ n: i + 1, failures: 0 }));
  let port = opts.port;
  let stopping = false;
  let relayId = 0;
  const acks = new Map<number, () => void>();
  const onServing = new Map<Slot, (port: number) => void>();
  const onStartFailed = new Map<Slot, (err: Error) => void>();

  const toWorker = (slot: Slot, message: Down) => {
    try {
      slot.proc?.send(message);
    } catch {
      // exiting: it is restarted, or stopping
    }
  };
  const live = () => slots.filter((s) => s.proc && s.servingSince !== undefined);

  const relayIdentity = async (tenantId: string, except?: Slot) => {
    const targets = live().filter((s) => s !== except);
    await Promise.race([
      Promise.all(
        targets.map(
          (slot) =>
            new Promise<void>((resolve) => {
              const id = ++relayId;
              acks.set(id, resolve);
              toWorker(slot, { t: 'identity', id, tenantId });
            }),
        ),
      ),
      Bun.sleep(RELAY_TIMEOUT_MS),
    ]);
  };

  const onMessage = (slot: Slot, message: Up) => {
    switch (message.t) {
      case 'hello':
        slot.waiting = true;
        if (services) toWorker(slot, { t: 'go' });
        break;
      case 'serving':
        slot.servingSince = Date.now();
        onServing.get(slot)?.(message.port);
        if (services) toWorker(slot, { t: 'tick', at: services.heartbeat.lastTickAt(), intervalMs: services.heartbeat.intervalMs });
        break;
      case 'hit': {
        const limiter = services?.rateLimits?.(message.scope, message.windowMs);
        if (!limiter) return;
        void limiter.hit(message.budgets).then((decisions) => toWorker(slot, { t: 'hit', id: message.id, decisions }));
        break;
      }
      case 'identity':
        services?.dropIdentity?.(message.tenantId);
        void relayIdentity(message.tenantId, slot).then(() => toWorker(slot, { t: 'ack', id: message.id }));
        break;
      case 'ack':
        acks.get(message.id)?.();
        acks.delete(message.id);
        break;
    }
  };

  const forward = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    let rest = '';
    for await (const chunk of stream) {
      const text = rest + decoder.decode(chunk, { stream: true });
      const end = text.lastIndexOf('\n');
      if (end < 0) {
        rest = text;
        continue;
      }
      writeLogLine(text.slice(0, end + 1));
      rest = text.slice(end + 1);
    }
    if (rest) writeLogLine(rest + '\n');
  };

  const spawn = (slot: Slot) => {
    slot.servingSince = undefined;
    slot.waiting = false;
    const proc: Subprocess<'ignore', 'pipe', 'inherit'> = Bun.spawn(command, {
      env: { ...process.env, ...opts.env, [WORKER_ENV]: String(slot.n), PORT: String(port), CFDI_PDF_WORKERS: pdfWorkers },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'inherit',
      serialization: 'json',
      ipc: (message) => onMessage(slot, message as Up),
      onExit: (_proc, exitCode, signalCode): void => exited(slot, proc, exitCode, signalCode),
    });
    slot.proc = proc;
    slot.forwarded = forward(proc.stdout).catch(() => {});
  };

  const exited = (slot: Slot, proc: Subprocess, exitCode: number | null, signal: number | NodeJS.Signals | null) => {
    if (slot.proc !== proc) return;
    const wasServing = slot.servingSince;
    slot.proc = undefined;
    slot.servingSince = undefined;
    const started = onStartFailed.get(slot);
    if (started) return started(new Error(`worker ${slot.n} exited before serving (exit code ${exitCode ?? signal})`));
    if (stopping) return;
    // A worker that ran a while starts again at once; one that keeps dying waits longer each time, up to 30 s.
    slot.failures = wasServing !== undefined && Date.now() - wasServing > 60_000 ? 0 : slot.failures + 1;
    const delayMs = Math.min(30_000, 250 * 2 ** slot.failures);
    logger.error('worker exited: restarting it', { worker: slot.n, pid: proc.pid, exit_code: exitCode, signal, restart_in_ms: delayMs });
    setTimeout(() => {
      if (!stopping) spawn(slot);
    }, delayMs);
  };

  const serve = (slot: Slot) =>
    new Promise<number>((resolve, reject) => {
      onServing.set(slot, resolve);
      onStartFailed.set(slot, reject);
      spawn(slot);
    }).finally(() => {
      onServing.delete(slot);
      onStartFailed.delete(slot);
    });

  const stop = async () => {
    stopping = true;
    const running = slots.flatMap((s) => (s.proc ? [s.proc] : []));
    const forwarded = slots.map((s) => s.forwarded);
    for (const proc of running) proc.kill('SIGTERM');
    // Each bounds its own shutdown (index.ts); this bounds a worker that hangs anyway.
    const all = Promise.all(running.map((p) => p.exited));
    if ((await Promise.race([all.then(() => true), Bun.sleep(20_000).then(() => false)])) === false) {
      for (const proc of running) if (proc.exitCode === null) proc.kill('SIGKILL');
      await all;
    }
    await Promise.race([Promise.all(forwarded), Bun.sleep(1000)]); // their last lines (stopped) before the supervisor's
  };

  // PORT=0: a free port, found here, so that the workers start together (the kernel gives it to no one else soon).
  if (port === 0) {
    const probe = Bun.serve({ hostname: opts.host, port: 0, fetch: () => new Response(null, { status: 503 }) });
    port = probe.port!;
    probe.stop(true);
  }
  const serving = Promise.all(slots.map(serve));
  serving.catch(() => {}); // awaited by go
  return {
    async go(given) {
      services = given;
      for (const slot of slots) if (slot.waiting) toWorker(slot, { t: 'go' });
      try {
        await serving;
      } catch (err) {
        await stop();
        throw err;
      }
      return {
        port,
        pids: () => slots.flatMap((s) => (s.proc ? [s.proc.pid] : [])),
        relayTick: (heartbeat) => {
          for (const slot of live()) toWorker(slot, { t: 'tick', at: heartbeat.lastTickAt(), intervalMs: heartbeat.intervalMs });
        },
        relayIdentity: (tenantId) => relayIdentity(tenantId),
        stop,
      };
    },
  };
}
