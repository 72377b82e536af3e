import { createApp, VERSION } from './app.ts';
import { CATALOG_VERSION, warmCatalogs } from './catalogs/index.ts';
import { useNativeDeflate } from './cfdi/pdf.ts';
import { seedCatalogs } from './catalogs/seed.ts';
import { type Db, LOW_FREE_BYTES, MIN_FREE_BYTES, openDatabase } from './db/client.ts';
import { closeDatabase } from './db/engine.ts';
import { sqliteDurability } from './db/connection.ts';
import { databaseName, openConfiguredDatabase, reportTransactionRetries } from './db/open.ts';
import { DatabaseUnreachable } from './db/postgres/reach.ts';
import { MasterKeyMismatch } from './db/master-key.ts';
import { DemoSetUpFailed, demoBanner, setUpDemo } from './demo.ts';
import { type BootWork, runBootWork } from './boot.ts';
import { BootLockTimeout } from './db/boot-lock.ts';
import { type Config, ConfigError, loadConfig } from './env.ts';
import { recoverJobs, releaseLeases } from './jobs/queue.ts';
import { newId } from './lib/ids.ts';
import { createLogger, writeLogLine } from './lib/logger.ts';
import { uncaughtExceptionHandler } from './lib/uncaught.ts';
import { periodicWork } from './periodic.ts';
import { refreshStaleReceived } from './invoices/received/status.ts';
import type { SandboxSat } from './pac/sandbox.ts';
import { buildPacs } from './pac/registry.ts';
import { chooseTopology } from './topology/index.ts';

// The only module with side effects: configuration → database → migrations → scheduler → HTTP server. The deployment's
// shape (one process on SQLite, instances on PostgreSQL, either under a supervisor with WORKERS > 1) is chosen once,
// here, by chooseTopology (src/topology): nothing below asks which engine or shape it runs on.
let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

const topology = chooseTopology(config);
const logger = createLogger(config.logLevel, undefined, topology.worker === undefined ? undefined : { worker: topology.worker });
reportTransactionRetries((r) =>
  r.committed ? logger.info('transaction ran again after a conflict', { ...r }) : logger.warn('transaction given up after conflicts', { ...r }),
);
// A worker of a supervisor does not lead: its supervisor says and does once what the service says and does once.
const leads = topology.leads;
if (leads) for (const warning of config.warnings) logger.warn(warning); // a legacy setting's name, said once (not per worker)
useNativeDeflate(); // pdf-lib (a logo's check here) compresses with the native zlib; each PDF worker thread calls it too
// Every promise is awaited or caught where it is made; these log whatever escapes. An uncaught exception exits but
// for a PostgreSQL driver's connection fault (src/lib/uncaught.ts).
process.on('unhandledRejection', (reason) => logger.error('unhandled rejection', { err: reason instanceof Error ? reason.stack : String(reason) }));
// A driver fault during the start exits: seen beside a PostgreSQL restart, a start that went on after one never
// listened and spun its event loop; its supervisor (or orchestrator) starts it again.
let serving = false;
process.on('uncaughtException', uncaughtExceptionHandler({ logger, exit: (code) => process.exit(code), serving: () => serving }));
const listen = (fetch: (req: Request) => Response | Promise<Response>, options = { reusePort: false }) => {
  try {
    // A worker shares the port with its siblings; anything else holding it is still refused (SO_REUSEPORT on both).
    return Bun.serve({ hostname: config.host, port: config.port, fetch, ...(options.reusePort ? { reusePort: true } : {}) });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') console.error(`port ${config.port} is already in use (set PORT)`);
    else if (code === 'EACCES') console.error(`port ${config.port} needs privileges this user lacks (set PORT above 1023)`);
    else if (code === 'EADDRNOTAVAIL') console.error(`HOST ${config.host} is not an address of this machine (set HOST)`);
    else throw err;
    process.exit(1);
  }
};
// Fail on a taken port in a second, not after the catalogs load (a minute on a first start): try it, let it go.
if (config.port !== 0 && leads) listen(() => new Response(null, { status: 503 })).stop(true);
if (config.generatedSecrets.length > 0 && leads) {
  logger.warn('secrets generated: back these files up with the database (without master-key the stored CSD keys cannot be read)', {
    files: config.generatedSecrets,
  });
}
// A full disk fails every write with 503: say so at start, not at the first invoice (PostgreSQL's disk is its server's).
const free = topology.freeBytes();
const MiB = 1024 * 1024;
if (free < MIN_FREE_BYTES) {
  console.error(
    `DATA_DIR ${config.dataDir} has ${Math.floor(free / MiB)} MiB free; the service needs at least ${MIN_FREE_BYTES / MiB} MiB to record invoices (free space, or point DATA_DIR at a larger volume)`,
  );
  process.exit(1);
}
if (!config.publicBaseUrl && leads)
  logger.warn("PUBLIC_BASE_URL is not set: receipts' self_invoice_url is null (set it to the address customers reach this server at)");
if (free < LOW_FREE_BYTES && leads)
  logger.warn('little free space in DATA_DIR: when it runs out, writes answer 503 and /health reports the database down', {
    data_dir: config.dataDir,
    free_mib: Math.floor(free / MiB),
  });
// The workers load their program now, while this process migrates, loads the catalogs and does the boot work; they
// open the database once that is done (topology.serve, below); a worker waits here for its supervisor's go.
await topology.beforeDatabase(logger);
let db: Db;
try {
  db = await openConfiguredDatabase(config.database, {
    synchronous: config.sqliteSynchronous,
    wait: {
      seconds: config.databaseConnectTimeoutSeconds,
      waiting: (problem) =>
        logger.warn('waiting for the database', { database: databaseName(config.database), problem, timeout_s: config.databaseConnectTimeoutSeconds }),
    },
    poolSize: config.databasePoolSize,
    lockTimeoutSeconds: config.bootLockTimeoutSeconds,
  });
} catch (err) {
  // One line naming the problem and the setting to fix, as `cfdi-api migrate` prints: no stack.
  const message = err instanceof Error ? err.message : String(err);
  console.error(err instanceof DatabaseUnreachable ? message : `cannot open or migrate the database (${databaseName(config.database)}): ${message}`);
  process.exit(1);
}
await topology.opened(db, logger);
// The SAT catalogs live in a SQLite file of their own, never in the business database (src/topology/index.ts says where).
const catalogDb = openDatabase(topology.catalogsAt);
const catalogsStarted = performance.now();
// A worker (on SQLite, and on PostgreSQL under a supervisor) finds them loaded.
const seeded = await seedCatalogs(catalogDb, () =>
  logger.info(
    topology.catalogsAt === ':memory:'
      ? 'loading the SAT catalogs into memory (on PostgreSQL, at every start)'
      : 'loading the SAT catalogs into their own SQLite file (first start or a new catalog version)',
    { version: CATALOG_VERSION },
  ),
);
if (seeded) logger.info('SAT catalogs loaded', { version: CATALOG_VERSION, duration_ms: Math.round(performance.now() - catalogsStarted) });
warmCatalogs();
if (seeded || leads) Bun.gc(true); // loading the catalogs left some hundred MiB of garbage: give it back before serving
// What must stay one across the processes serving the database: rate counters, identity changes, job wake-ups, work
// only one runs at a time, the scheduler's heartbeat.
const coordination = topology.coordinate(db, catalogDb, logger);
// One scheduler among the processes (none in a worker), made before the app, whose /health reads its heartbeat; the
// jobs task calls the app's worker, so the scheduler starts only once the app exists (below).
const scheduler = topology.schedule(
  periodicWork({
    db,
    logger,
    exclusive: coordination.exclusive,
    drainJobs: () => app.worker.drain(),
    issueGlobalInvoices: () => app.issueScheduledGlobalInvoices(),
    syncSatDownloads: () => app.syncSatDownloads(),
    sat69bUrl: config.sat69bUrl,
    // A day between two checks of one received CFDI, ten at most a tick: SAT's service is slow and shared.
    refreshReceivedStatus: () => refreshStaleReceived(app.receivedStatus, { olderThanMs: 86_400_000, batch: 10 }),
  }),
  logger,
);
// Unique per process start: a restarted instance never passes the fence of the leases its earlier run held.
const workerId = newId('boot');
let made: ReturnType<typeof createApp> | undefined;
// The live PACs in PACS order; the first stamps (the failover router takes the list), each keeps its stamps' follow-ups.
const livePacs = buildPacs(config.pacs, { satConsultaUrl: config.satConsultaUrl });
// One app, made by the demo's set-up (it calls the API) or after the boot work.
const appWith = (sandboxSat: SandboxSat) =>
  (made ??= createApp({
    db,
    coordination,
    jwtSecret: config.jwtSecret,
    masterKey: config.masterKey,
    sandboxSat,
    satCertificatesUrl: config.satCertificatesUrl,
    livePacs,
    pacAmbiguousWindowMs: config.pacAmbiguousWindowSeconds * 1000,
    pacRetryMaxMs: config.pacRetryMaxSeconds * 1000,
    smtp: config.smtp,
    publicBaseUrl: config.publicBaseUrl,
    block69bReceivers: config.block69bReceivers,
    satConsultaUrl: config.satConsultaUrl,
    satRetencionesConsultaUrl: config.satRetencionesConsultaUrl,
    logger,
    workerId,
    jobLeaseMs: config.jobLeaseSeconds * 1000,
    webhookAllowPrivate: config.webhookAllowPrivate,
    trustedProxies: config.trustedProxies,
    webhookRetrySchedule: config.webhookRetrySchedule,
    cancellationPollSeconds: config.cancellationPollSeconds,
    satDownloads: config.satDownloads,
    registration: config.registration,
    corsOrigins: config.corsOrigins,
    holdBeforeAnswer: config.testHoldBeforeAnswer
      ? (path) => {
          logger.warn('holding before answer (TEST_HOLD_BEFORE_ANSWER)', { path });
          return new Promise<void>(() => undefined);
        }
      : undefined,
  }));

// Once per database, under the boot lock (src/boot.ts): N instances starting together never race to create these.
let boot: BootWork;
try {
  boot = await runBootWork(db, {
    masterKey: config.masterKey,
    lockTimeoutSeconds: config.bootLockTimeoutSeconds,
    // Before listening, so the printed curl works as soon as it can be read.
    demo: config.demo && leads ? (sandboxSat) => setUpDemo({ app: appWith(sandboxSat), db, logger }) : undefined,
  });
} catch (err) {
  if (err instanceof MasterKeyMismatch || err instanceof DemoSetUpFailed || err instanceof BootLockTimeout) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
if (boot.sandboxSatCreated) logger.info('sandbox SAT stamping certificate created', { no_certificado: boot.sandboxSat.noCertificado });
// A worker (restarted, perhaps) leaves the leases alone: its siblings are running their jobs.
const recovered = leads ? await recoverJobs(db, new Date()) : 0;
if (recovered > 0) logger.info('jobs whose lease expired are due again', { count: recovered });
const app = appWith(boot.sandboxSat);
await app.ready; // listening for other processes' identity changes before serving
scheduler?.start(); // the first tick runs at once: recovered jobs are stamped without waiting
// Another process's enqueue wakes the pools that run that type now, not at the next tick.
const stopListening = await coordination.jobWakeups.listen((type) => app.worker.wake(type), logger);
const demo = boot.demo;

const served = await topology.serve(app.fetch, listen, (reason) => void shutdown(reason, true));
if (!served) {
  await closeDatabase(db);
  topology.cleanUp();
  process.exit(1);
}
const server = served;
serving = true;
const port = server.port;
// Read back from the connection, not from the setting: what it really does with a write before answering.
const synchronous = sqliteDurability(db);
// One line when the service serves (a worker's own start is the supervisor's to announce).
if (leads) {
  const { database, data_dir, catalogs, ...shape } = topology.described(server);
  logger.info('listening', {
    host: config.host ?? 'all interfaces',
    port,
    ...(data_dir === undefined ? {} : { data_dir }),
    version: VERSION,
    database,
    database_at: databaseName(config.database),
    catalogs,
    ...(synchronous ? { sqlite_synchronous: synchronous } : {}),
    ...shape,
  });
}
// Through the log's buffer, so it comes after the lines before it ("listening" among them): the last thing the start prints.
if (demo) writeLogLine(demoBanner(demo, server.url ?? `http://${config.host ?? 'localhost'}:${port}/`));
// Not waited for and not fatal (invoices are issued without email): one line says whether the SMTP server greeted.
if (leads && config.smtp) void app.checkSmtp();

let stopping = false;
/**
 * `abrupt` (the supervisor died): what a crash of the whole service would do, but leaving nothing behind: connections
 * dropped and jobs abandoned at once, their leases released so the next start takes them over without waiting.
 */
async function shutdown(signal: string, abrupt = false) {
  if (stopping) return;
  stopping = true;
  logger.info('shutting down', { signal });
  // Every step below is bounded but the database's last calls; a database gone for good (dropped, unreachable)
  // must not keep the process, its workers and its port alive: exit anyway.
  setTimeout(() => {
    logger.error('shutdown did not finish in 30 s: exiting anyway', { signal });
    process.exit(1);
  }, 30_000).unref();
  if (abrupt) {
    void server.stop(true);
    void app.worker.stop(); // claims nothing more; what runs is cut short by the exit below
    // Bounded: a transaction still open ends with the process (SQLite rolls it back, and its lock goes with it). The
    // database is not closed: requests still running would fail with 500s on connections not yet dropped.
    await Promise.race([releaseLeases(db, workerId, new Date()).catch(() => 0), Bun.sleep(1000)]);
    process.exit(0);
  }
  // In-flight requests and jobs (a stamp, a webhook attempt) get a bounded time to finish and be recorded; then
  // connections are closed regardless. A job cut short is re-run after the restart (its lease is recovered).
  const force = setTimeout(() => void server.stop(true), 10_000);
  try {
    const tasksEnded = scheduler?.stop();
    // A supervisor's workers stop as below, each in its own process, while its own job pools finish.
    await Promise.race([Promise.all([server.stop(), app.worker.stop(), tasksEnded]), Bun.sleep(11_000)]);
  } finally {
    clearTimeout(force);
    await stopListening().catch(() => {});
    const released = await releaseLeases(db, workerId, new Date());
    if (released > 0) logger.warn('jobs cut short, due again at the next start', { count: released });
    await closeDatabase(db);
    await closeDatabase(catalogDb);
    topology.cleanUp();
    logger.info('stopped', { signal });
    process.exit(0);
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(signal));
