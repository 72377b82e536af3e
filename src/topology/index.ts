import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOGS_FILE, removeCatalogs } from '../catalogs/seed.ts';
import { type Db, freeBytes } from '../db/client.ts';
import { shareWriteLock } from '../db/connection.ts';
import type { Config } from '../env.ts';
import { createScheduler, type Scheduler, type Task } from '../jobs/scheduler.ts';
import type { Logger } from '../lib/logger.ts';
import { spawnWorkers, supervisorLink, type Workers, workerNumber } from './cluster.ts';
import { type Coordination, lateHeartbeat } from './coordination.ts';
import { postgresInstances } from './postgres.ts';
import { singleProcess } from './single.ts';
import { supervisorCoordination, workerCoordination } from './supervised.ts';

/** PostgreSQL with workers: the SQLite file the supervisor loaded the SAT catalogs into, for its workers to open. */
const CATALOGS_ENV = 'CFDI_CATALOGS';

type Fetch = (req: Request) => Response | Promise<Response>;
type Listen = (fetch: Fetch, options: { reusePort: boolean }) => { port?: number; url?: URL; stop(force?: boolean): Promise<void> | void };

/** This process's place in the deployment, as src/index.ts needs it: what it does at start, how it serves and stops. */
export interface Topology {
  /** A worker's number, for its log lines. */
  worker?: number;
  /**
   * This process speaks and acts for the service once: the start-up warnings, the port check, the demo, recovering
   * expired leases, the SMTP check, the start line. A worker does none of it: its supervisor does.
   */
  leads: boolean;
  /** Free bytes where the business data is written (SQLite's DATA_DIR); PostgreSQL's disk is its server's: Infinity. */
  freeBytes(): number;
  /** Before the database opens: a supervisor spawns its workers (they load meanwhile); a worker waits for its go. */
  beforeDatabase(logger: Logger): Promise<void>;
  /** The database is open: what this shape needs of it before anything else runs. */
  opened(db: Db, logger: Logger): Promise<void>;
  /** The SQLite file (or `:memory:`) this process's SAT catalogs live in. */
  catalogsAt: string;
  /** Builds this process's Coordination, once. */
  coordinate(db: Db, catalogs: Db, logger: Logger): Coordination;
  /** The scheduler, in the one process that runs it (not a worker); the Coordination's heartbeat follows it. */
  schedule(work: { tasks: Task[]; daily: Task[]; hourly: Task[] }, logger: Logger): Scheduler | undefined;
  /** Serves `fetch` (a supervisor: through its workers); `undefined` when the workers did not start (logged). */
  serve(fetch: Fetch, listen: Listen, stop: (reason: string) => void): Promise<Served | undefined>;
  /** What the start line says about this shape. */
  described(served: Served): Record<string, unknown>;
  /** Removes what this shape made for its run (the supervisor's catalogs file). */
  cleanUp(): void;
}

interface Served {
  port: number;
  url?: URL;
  /** Stops serving: `force` drops connections at once. */
  stop(force?: boolean): Promise<void>;
}

/**
 * The one place that asks which engine and which shape this process runs on (acceptance 4 of issue 37): one process
 * on SQLite, instances on PostgreSQL, and either under a supervisor with WORKERS > 1 (this process the supervisor, or
 * one of its workers when CFDI_WORKER is set).
 */
export function chooseTopology(config: Config): Topology {
  const worker = workerNumber();
  const onPostgres = config.database.engine === 'postgres';
  const supervising = worker === undefined && config.workers > 1;
  // A worker's link to its supervisor: rate counters, identity changes and the scheduler's heartbeat come through it.
  const link = worker === undefined ? undefined : supervisorLink();
  if (link) process.stdout.on('error', () => {}); // the supervisor's end of the pipe is gone: the worker is stopping
  // The SAT catalogs live in a SQLite file of their own on both engines, never in the business database (its backups
  // leave them out): DATA_DIR/catalogs.sqlite beside SQLite's, rebuilt when missing or outdated; one in memory beside
  // PostgreSQL, or a temporary file a supervisor loads once for its workers (removed when it stops).
  const catalogFile = onPostgres && supervising ? join(tmpdir(), `cfdi-catalogs-${process.pid}.sqlite`) : undefined;
  const sharedCatalogs = onPostgres && link ? process.env[CATALOGS_ENV] : undefined;
  const catalogsAt = onPostgres ? (catalogFile ?? sharedCatalogs ?? ':memory:') : join(config.dataDir, CATALOGS_FILE);
  let spawned: ReturnType<typeof spawnWorkers> | undefined;
  const heartbeat = lateHeartbeat();
  let supervisor: ReturnType<typeof supervisorCoordination> | undefined;
  let workers: Workers | undefined;
  let spawnLogger: Logger | undefined;

  return {
    ...(worker === undefined ? {} : { worker }),
    leads: !link,
    freeBytes: () => (onPostgres ? Number.POSITIVE_INFINITY : freeBytes(config.dataDir)),
    async beforeDatabase(logger) {
      spawnLogger = logger;
      if (supervising)
        spawned = spawnWorkers({
          env: catalogFile ? { [CATALOGS_ENV]: catalogFile } : {},
          count: config.workers,
          host: config.host,
          port: config.port,
          logger,
        });
      if (link) await link.released();
    },
    async opened(db, logger) {
      if (link || supervising) shareWriteLock(db);
      if (!onPostgres && !link && (await removeCatalogs(db)))
        logger.info('SAT catalogs removed from the database, which backs up without them: they load into their own file', { file: CATALOGS_FILE });
    },
    catalogsAt,
    coordinate(db, catalogs, logger) {
      const base = onPostgres ? postgresInstances({ db, catalogs, heartbeat, logger }) : singleProcess({ catalogs, heartbeat });
      if (link) return workerCoordination(base, link, onPostgres);
      if (supervising) {
        supervisor = supervisorCoordination(base, onPostgres);
        return supervisor.coordination;
      }
      return base;
    },
    schedule(work, logger) {
      if (link) return undefined;
      const scheduler: Scheduler = createScheduler({
        logger,
        ...work,
        tasks: supervising ? [...work.tasks, { name: 'heartbeat-relay', run: () => workers?.relayTick(scheduler) }] : work.tasks,
      });
      heartbeat.follow(scheduler);
      return scheduler;
    },
    async serve(fetch, listen, stop) {
      if (!supervising) {
        const server = listen(fetch, { reusePort: link !== undefined });
        const served: Served = { port: server.port!, ...(server.url ? { url: server.url } : {}), stop: async (force) => void (await server.stop(force)) };
        if (link) {
          link.serving(served.port);
          // The supervisor is gone (killed): stop at once, as the whole service would have; never serve or write on alone.
          link.onOrphaned(() => stop('supervisor gone'));
        }
        return served;
      }
      try {
        workers = await spawned!.go(supervisor!.services);
      } catch (err) {
        spawnLogger?.error('the workers did not start', { err: err instanceof Error ? err.message : String(err) });
        return undefined;
      }
      supervisor!.attach(workers);
      const running = workers;
      // The workers bound their own shutdown (each finishes what it serves): no forcing from here.
      return { port: running.port, stop: async (force) => (force ? undefined : running.stop()) };
    },
    described: () => ({
      database: config.database.engine,
      // Where the data and the SAT catalogs are: DATA_DIR holds nothing on PostgreSQL, whose catalogs each start loads.
      ...(onPostgres ? {} : { data_dir: config.dataDir }),
      catalogs: onPostgres ? (catalogFile ? `SQLite ${catalogFile}, loaded at start for the workers` : 'in memory, loaded at start') : `SQLite ${catalogsAt}`,
      workers: workers ? config.workers : 1,
      ...(workers ? { worker_pids: workers.pids() } : {}),
    }),
    cleanUp() {
      if (catalogFile) for (const file of [catalogFile, `${catalogFile}-wal`, `${catalogFile}-shm`]) rmSync(file, { force: true });
    },
  };
}
