import { cors } from 'hono/cors';
import { createAuthBackend } from './auth/backend.ts';
import { createIdentityDirectory } from './auth/directory.ts';
import { createPasswordHasher, type PasswordCost } from './auth/passwords.ts';
import { createAccessTokens } from './auth/tokens.ts';
import type { Db } from './db/client.ts';
import { createAuthenticator } from './gateway/authenticate.ts';
import { CredentialCache } from './gateway/credential-cache.ts';
import { forgetTenant } from './auth/tenants/lookup.ts';
import { watchIdentityChanges } from './lib/identity-changes.ts';
import { createGateway } from './gateway/gateway.ts';
import { mountSystemRoutes } from './gateway/system.ts';
import { mountPortal } from './portal/routes.ts';
import { mountConsole } from './console/routes.ts';
import { createInvoiceBackend } from './invoices/backend.ts';
import type { Coordination } from './topology/coordination.ts';
import { combineWorkers, createWorker } from './jobs/worker.ts';
import { STAMP_JOB, stampJobHandler } from './invoices/cfdis/stamping.ts';
import { issueScheduledGlobalInvoices } from './invoices/receipts/service.ts';
import { RELEASE_JOB, releaseJobHandler } from './invoices/receipts/ledger.ts';
import { registerLifecycleReactions } from './invoices/lifecycle-reactions.ts';
import { emailJobHandler } from './invoices/emails/delivery.ts';
import { EMAIL_JOB } from './invoices/emails/outbox.ts';
import { withRetencionEmails } from './invoices/retenciones/email.ts';
import { retencionDuplicateStampKind } from './invoices/retenciones/duplicate-stamps.ts';
import { RETENCION_STAMP_JOB, retencionStampAttemptLog, retencionStampJobHandler } from './invoices/retenciones/stamping.ts';
import type { ConsultRetencion } from './invoices/retenciones/cancellation.ts';
import { createSmtpMailer } from './invoices/emails/smtp.ts';
import { createSmtpCheck } from './invoices/emails/smtp-check.ts';
import { CANCEL_JOB, cancellationJobHandler } from './invoices/cancellations/service.ts';
import { sandboxRegistry } from './invoices/sandbox-registry.ts';
import type { ReceivedStatusDeps } from './invoices/received/status.ts';
import { consultSat } from './pac/sat-consulta.ts';
import { consultSatRetencion } from './pac/sat-retenciones.ts';
import { SAT_DOWNLOAD_JOB } from './invoices/sat-downloads/service.ts';
import { satDownloadJobHandler, type SatIntake } from './invoices/sat-downloads/job.ts';
import { SAT_DESCARGA_MASIVA_DOWNLOAD_URL, SAT_DESCARGA_MASIVA_URL } from './pac/descarga-masiva.ts';
import { intakeReceived } from './invoices/received/intake.ts';
import { runSatDownloadSync } from './invoices/sat-downloads/sync.ts';
import { DEFAULT_RETRY_SCHEDULE, DELIVER_JOB, deliveryJobHandler } from './invoices/webhooks/delivery.ts';
import { systemResolver, type HostResolver } from './invoices/webhooks/target.ts';
import type { Environment } from './db/schema/index.ts';
import { newId } from './lib/ids.ts';
import { createSandboxPac, type SandboxSat } from './pac/sandbox.ts';
import { createSatCertificateSource } from './pac/sat-certificates.ts';
import type { Pac } from './pac/types.ts';
import { createPacRouter, type PacRouter } from './pac/failover.ts';
import { cfdiStampAttemptLog, routedStamper, sandboxStamper } from './invoices/cfdis/stamp-routing.ts';
import { cfdiDuplicateStampKind, duplicateCancelJobHandler, duplicateCheckJobHandler } from './invoices/cfdis/duplicate-stamps.ts';
import type { Logger } from './lib/logger.ts';
import { limitStorageLogs } from './lib/storage-log.ts';
import { trustedProxies } from './gateway/client-address.ts';
import type { PdfPool } from './invoices/cfdis/pdf-pool.ts';
import pkg from '../package.json' with { type: 'json' };

export interface AppDeps {
  db: Db;
  /**
   * What must stay one across the processes serving `db` (rate counters, identity changes, the scheduler's heartbeat,
   * the SAT catalogs' database): one implementation per deployment shape, src/topology, chosen by src/index.ts.
   */
  coordination: Coordination;
  jwtSecret: string;
  /** Encrypts stored secrets (CSD private keys); checked against the database at start-up. */
  masterKey: Buffer;
  /** The sandbox stamping identity (test environment). */
  sandboxSat: SandboxSat;
  /** SAT_CERTIFICATES_URL: SAT's certificate repository, where received CFDIs' stamping certificates are looked up (default: SAT's). */
  satCertificatesUrl?: string;
  /** The live PACs in PACS order: stamping fails over between them (GET /pacs shows their circuits); none → live issuing answers 503. */
  livePacs?: readonly Pac[];
  /** PAC_AMBIGUOUS_WINDOW_SECONDS in ms (default 600 s): how long a document a PAC may have stamped stays with it. */
  pacAmbiguousWindowMs?: number;
  /** PAC_RETRY_MAX_SECONDS in ms (default 300 s): the cap of the backoff of the jobs that ask a PAC. */
  pacRetryMaxMs?: number;
  /** A router made elsewhere, in place of one over `livePacs` (tests: their own breaker settings). */
  pacRouter?: PacRouter;
  /**
   * The SMTP server CFDIs are emailed through (SMTP_URL, SMTP_FROM); none → email_to and POST /cfdis/{id}/email answer
   * 400. EMAIL_DAILY_LIMIT (default 200) and EMAIL_TEST_CAPTURE go with it.
   */
  smtp?: { url: string; from: string; dailyLimit?: number; testCapture?: string };
  /** SAT's ConsultaCFDIService for received CFDI in live mode (SAT_CONSULTA_URL; default: production). */
  satConsultaUrl?: string;
  /** SAT's verification page for Retenciones, asked for a live retención's status (SAT_RETENCIONES_CONSULTA_URL; default: production). */
  satRetencionesConsultaUrl?: string;
  /** BLOCK_69B_RECEIVERS: refuse to issue to a receptor on the tenant's Lista 69-B as definitivo (default off). */
  block69bReceivers?: boolean;
  /** PUBLIC_BASE_URL: where customers reach this server (receipts' self_invoice_url); none: receipts have no link. */
  publicBaseUrl?: string;
  /** How long POST /cfdis waits for the provider before answering 202 (default 5 s). */
  stampBudgetMs?: number;
  /** How long the sandbox's pac_slow scenario takes (default: the budget + 1 s). */
  sandboxSlowMs?: number;
  /** How long a request waits for another with its Idempotency-Key before 409 idempotency_key_in_use (default 8 s). */
  idempotencyWaitMs?: number;
  /**
   * Tests only (TEST_HOLD_BEFORE_ANSWER=1, set by tests/process/idempotency-crash.test.ts): a request with an
   * Idempotency-Key waits here after its route committed, before its answer, so the test can kill the process there.
   */
  holdBeforeAnswer?: (path: string) => Promise<void>;
  /** Identifies this process's job leases and Idempotency-Key claims (default: random per boot). */
  workerId?: string;
  /** How long a job claim holds without a heartbeat, in ms (default 30 s; JOB_LEASE_SECONDS). */
  jobLeaseMs?: number;
  /**
   * false: the worker runs only when drain() is called: neither a new job nor one falling due wakes it (tests that
   * step the queue by hand, whose assertions between two steps a drain in the background would race).
   */
  wakeOnEnqueue?: boolean;
  /** Seconds before each webhook attempt (default: Standard Webhooks' schedule). */
  webhookRetrySchedule?: number[];
  /** How often a pending cancellation is polled, in seconds (default 300; the sandbox's receiver answers within half of it). */
  cancellationPollSeconds?: number;
  /**
   * SAT's Descarga Masiva (SAT_DESCARGA_MASIVA_URL, SAT_DESCARGA_MASIVA_DOWNLOAD_URL, SAT_DOWNLOAD_POLL_SECONDS,
   * SAT_DOWNLOAD_STALLED_SECONDS); default SAT's production hosts, 300 s and three days. `fetch`: tests only.
   */
  satDownloads?: { url?: string; downloadUrl?: string; pollSeconds?: number; stalledSeconds?: number; fetch?: typeof fetch };
  /** Where downloaded CFDI XML goes; default the received-CFDI intake (`intakeReceived`). Tests only. */
  satIntake?: SatIntake;
  /** Let webhooks (test and live) target private, loopback, link-local and metadata addresses (local receivers). */
  webhookAllowPrivate?: boolean;
  /** TRUSTED_PROXIES: addresses or CIDR ranges whose X-Forwarded-For names the client. */
  trustedProxies?: string[];
  /** Resolves webhook host names (default: the system's, dns.lookup); tests answer without DNS. */
  webhookResolver?: HostResolver;
  logger: Logger;
  /** Where PDFs render (default: the process's one pool); tests give a small one. */
  pdfPool?: PdfPool;
  now?: () => Date;
  passwordCost?: PasswordCost;
  /** Requests per minute per client address for calls without a credential (login, register, health). */
  anonymousRateLimit?: number;
  /** Requests per minute per client address for the self-invoicing portal, /portal (default 30). */
  portalRateLimit?: number;
  /** Requests per minute per client address for /health and /health/live (default 600). */
  probeRateLimit?: number;
  maxBodyBytes?: number;
  /** `closed`: POST /auth/register answers 403; the operator's create-tenant command creates tenants (default open). */
  registration?: 'open' | 'closed';
  /** Sign-ups per hour per client address and in all (default 5 and 100). */
  registrationLimits?: { perAddress: number; total: number };
  /** Browser origins allowed to call the API (`['*']`: any); none: no CORS headers. */
  corsOrigins?: string[];
}

/** Headers a browser script may read from an answer (CORS hides all but a few unless listed). */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
  'Warning',
  'Content-Disposition',
  'Location',
];

export const VERSION: string = pkg.version;

/** Pure composition: gateway in front of the auth and invoice backends. No I/O happens here. */
export function createApp(deps: AppDeps) {
  const now = deps.now ?? (() => new Date());
  // What reacts to a CFDI's status moves (events, emails, receipts, payments): registered once, the same for every app.
  registerLifecycleReactions();
  limitStorageLogs(deps.logger, () => now().getTime());
  const accessTokens = createAccessTokens(deps.jwtSecret);
  // This process among the instances: it owns the job leases and Idempotency-Key claims it takes.
  const workerId = deps.workerId ?? newId('boot');
  const backendDeps = {
    db: deps.db,
    now,
    logger: deps.logger,
    masterKey: deps.masterKey,
    instanceId: workerId,
    idempotencyWaitMs: deps.idempotencyWaitMs,
    holdBeforeAnswer: deps.holdBeforeAnswer,
  };
  const credentials = new CredentialCache();
  const { rateLimits } = deps.coordination;
  const identity = createIdentityDirectory(deps.db, accessTokens, now);
  // Identity writes announced here or by any other process drop what this one cached of the tenant.
  // `ready` resolves once this process hears the others (the Coordination's identityChanges): serve after it.
  const ready = watchIdentityChanges(
    deps.db,
    (tenantId) => {
      credentials.forget(tenantId);
      forgetTenant(deps.db, tenantId);
    },
    deps.coordination.identityChanges,
  );
  const authBackend = createAuthBackend({
    ...backendDeps,
    hasher: createPasswordHasher(deps.passwordCost),
    accessTokens,
    rateLimits,
    registration: deps.registration ?? 'open',
    registrationLimits: deps.registrationLimits ?? { perAddress: 5, total: 100 },
  });
  const stampBudgetMs = deps.stampBudgetMs ?? 5000;
  const cancellationPollMs = (deps.cancellationPollSeconds ?? 300) * 1000;
  const sandboxPac = createSandboxPac(deps.sandboxSat, now, deps.sandboxSlowMs ?? stampBudgetMs + 1000, sandboxRegistry(deps.db, cancellationPollMs));
  // Five provider-side failures in a row open a PAC's circuit; after 30 s one probe may close it again.
  const pacRouter =
    deps.pacRouter ??
    (deps.livePacs?.length
      ? createPacRouter(deps.livePacs, { ambiguousWindowMs: deps.pacAmbiguousWindowMs ?? 600_000, breaker: { failureThreshold: 5, openMs: 30_000 }, now })
      : undefined);
  const sandboxStamps = sandboxStamper(sandboxPac);
  // Received CFDIs' SelloSAT: the sandbox's own stamping certificate is known in both modes, others are fetched and cached.
  // Received CFDI's SAT status: the live service, or in test mode the sandbox's simulated SAT (it knows the test CFDIs stamped here).
  const receivedStatus: ReceivedStatusDeps = {
    db: deps.db,
    now,
    consult: (environment, query) => (environment === 'test' ? sandboxPac.status(query) : consultSat(query, { url: deps.satConsultaUrl })),
  };
  // A retención's SAT status: SAT's verification page, or in test mode the sandbox's simulated SAT.
  const consultRetencion: ConsultRetencion = (environment, tenantId, query) =>
    environment === 'test' ? sandboxPac.retencionStatus(tenantId, query.uuid) : consultSatRetencion(query, { url: deps.satRetencionesConsultaUrl });
  const satCertificates = createSatCertificateSource({ baseUrl: deps.satCertificatesUrl, sandboxSat: deps.sandboxSat });
  /** What intakeReceived needs (uploads, and the packages Descarga Masiva downloads). */
  const receivedDeps = { db: deps.db, now, identity, satCertificates };
  const liveStamps = pacRouter && routedStamper(deps.db, pacRouter, cfdiStampAttemptLog);
  const stamperFor = (environment: Environment) => (environment === 'test' ? sandboxStamps : liveStamps);
  // Retenciones route through the same PACs and rules, from their own attempts.
  const liveRetencionStamps = pacRouter && routedStamper(deps.db, pacRouter, retencionStampAttemptLog);
  const retencionStamperFor = (environment: Environment) => (environment === 'test' ? sandboxStamps : liveRetencionStamps);
  const pacFor = (environment: Environment, stampedBy?: string | null) =>
    environment === 'test' ? sandboxPac : pacRouter?.pac(stampedBy ?? pacRouter.states()[0]?.name ?? '');
  const duplicateDeps = { db: deps.db, now, masterKey: deps.masterKey, logger: deps.logger, pacFor };
  // The worker does nothing by itself: an enqueue wakes it, index.ts lets the scheduler drain it, tests call drain().
  const wakeJobs = deps.wakeOnEnqueue === false ? () => {} : () => worker.wake();
  const byHand = deps.wakeOnEnqueue === false ? { wakeWithinMs: 0 } : {};
  const webhookDeps = {
    db: deps.db,
    now,
    masterKey: deps.masterKey,
    retrySchedule: deps.webhookRetrySchedule ?? DEFAULT_RETRY_SCHEDULE,
    allowPrivate: deps.webhookAllowPrivate ?? false,
    resolve: deps.webhookResolver ?? systemResolver,
    wakeJobs,
    logger: deps.logger,
  };
  const mailer = deps.smtp ? createSmtpMailer(deps.smtp) : undefined;
  const smtpCheck = createSmtpCheck(mailer, now, deps.logger);
  const emailDeliveryDeps = { db: deps.db, now, mailer, identity, logger: deps.logger, pdfPool: deps.pdfPool };
  const emailHandler = withRetencionEmails(emailJobHandler(emailDeliveryDeps), emailDeliveryDeps);
  // Two pools on the same jobs table, so webhook receivers (up to 10 s each) never take a slot from stamping, and
  // each webhook endpoint is its own lane: a slow one holds at most 8 of the 64 delivery slots, and a tenant's
  // endpoints together at most 16, so one tenant with many slow receivers leaves the other 48 to everyone else.
  const stamping = createWorker({
    ...byHand,
    db: deps.db,
    now,
    workerId,
    logger: deps.logger,
    leaseMs: deps.jobLeaseMs,
    concurrency: 32,
    handlers: {
      [STAMP_JOB]: { ...stampJobHandler({ db: deps.db, now, masterKey: deps.masterKey, stamperFor, logger: deps.logger }), maxBackoffMs: deps.pacRetryMaxMs },
      [RETENCION_STAMP_JOB]: {
        ...retencionStampJobHandler({ db: deps.db, now, stamperFor: retencionStamperFor, logger: deps.logger }),
        maxBackoffMs: deps.pacRetryMaxMs,
      },
      [CANCEL_JOB]: cancellationJobHandler({ db: deps.db, now, pacFor, cancellationPollMs }),
      // A second stamp after failover, under one set of rules for CFDIs and retenciones: each kind its tables and jobs.
      [cfdiDuplicateStampKind.checkJob]: { ...duplicateCheckJobHandler(duplicateDeps, cfdiDuplicateStampKind), maxBackoffMs: deps.pacRetryMaxMs },
      [cfdiDuplicateStampKind.cancelJob]: { ...duplicateCancelJobHandler(duplicateDeps, cfdiDuplicateStampKind), maxBackoffMs: deps.pacRetryMaxMs },
      [retencionDuplicateStampKind.checkJob]: { ...duplicateCheckJobHandler(duplicateDeps, retencionDuplicateStampKind), maxBackoffMs: deps.pacRetryMaxMs },
      [retencionDuplicateStampKind.cancelJob]: { ...duplicateCancelJobHandler(duplicateDeps, retencionDuplicateStampKind), maxBackoffMs: deps.pacRetryMaxMs },
      [RELEASE_JOB]: releaseJobHandler({ now }),
      [SAT_DOWNLOAD_JOB]: satDownloadJobHandler({
        db: deps.db,
        now,
        masterKey: deps.masterKey,
        satDownloads: {
          url: deps.satDownloads?.url ?? SAT_DESCARGA_MASIVA_URL,
          downloadUrl: deps.satDownloads?.downloadUrl ?? SAT_DESCARGA_MASIVA_DOWNLOAD_URL,
          pollSeconds: deps.satDownloads?.pollSeconds ?? 300,
          stalledSeconds: deps.satDownloads?.stalledSeconds ?? 259_200,
          ...(deps.satDownloads?.fetch ? { fetch: deps.satDownloads.fetch } : {}),
        },
        // A closure: the intake's dependencies are made below; a job runs only after createApp returns.
        intake: deps.satIntake ?? ((scope, files, o) => intakeReceived(receivedDeps, scope, files, o)),
      }),
      // Without SMTP_URL only emails queued before it was removed come here, and fail at once saying so.
      ...(mailer ? {} : { [EMAIL_JOB]: emailHandler }),
    },
  });
  const deliveries = createWorker({
    ...byHand,
    db: deps.db,
    now,
    workerId,
    logger: deps.logger,
    leaseMs: deps.jobLeaseMs,
    concurrency: 64,
    laneCap: 8,
    tenantCap: 16,
    handlers: { [DELIVER_JOB]: deliveryJobHandler(webhookDeps) },
  });
  // With SMTP_URL, emails get a pool of their own: a slow SMTP server holds at most these 8 connections and never a
  // stamping slot, and each tenant is its own lane: one tenant's backlog holds at most 2, so the others' emails still
  // go at once. Without it there is no third pool to claim (each drain claims once per pool).
  const worker = mailer
    ? combineWorkers(
        stamping,
        deliveries,
        createWorker({
          ...byHand,
          db: deps.db,
          now,
          workerId,
          logger: deps.logger,
          leaseMs: deps.jobLeaseMs,
          concurrency: 8,
          laneCap: 2,
          handlers: { [EMAIL_JOB]: emailHandler },
        }),
      )
    : combineWorkers(stamping, deliveries);
  const receiptDeps = {
    db: deps.db,
    now,
    logger: deps.logger,
    masterKey: deps.masterKey,
    identity,
    pacFor,
    stamperFor,
    stampBudgetMs,
    wakeJobs,
    mailer,
    publicBaseUrl: deps.publicBaseUrl,
    pdfPool: deps.pdfPool,
  };
  const invoiceBackend = createInvoiceBackend({
    ...backendDeps,
    masterKey: deps.masterKey,
    identity,
    pacFor,
    stamperFor,
    retencionStamperFor,
    stampBudgetMs,
    cancellationPollMs,
    wakeJobs,
    mailer,
    block69bReceivers: deps.block69bReceivers ?? false,
    publicBaseUrl: deps.publicBaseUrl,
    pdfPool: deps.pdfPool,
    retrySchedule: webhookDeps.retrySchedule,
    allowPrivate: webhookDeps.allowPrivate,
    resolve: webhookDeps.resolve,
    rateLimits,
    pacRouter,
    catalogDb: deps.coordination.catalogs,
    satCertificates,
    receivedStatus,
    consultRetencion,
  });

  const proxies = trustedProxies(deps.trustedProxies ?? []);
  const { app, anonymous, probes, portal, routeToBackend } = createGateway({
    logger: deps.logger,
    authenticate: createAuthenticator(identity, now, credentials),
    auth: authBackend,
    invoices: invoiceBackend,
    anonymousLimit: deps.anonymousRateLimit ?? 100,
    probeLimit: deps.probeRateLimit ?? 600,
    portalLimit: deps.portalRateLimit ?? 30,
    maxBodyBytes: deps.maxBodyBytes ?? 1024 * 1024,
    trustedProxies: proxies,
    rateLimits,
  });

  // Before any route: a preflight (OPTIONS, no credential by design) is answered here, never by authentication.
  const origins = deps.corsOrigins;
  if (origins?.length) app.use('*', cors({ origin: origins.includes('*') ? '*' : origins, exposeHeaders: EXPOSED_HEADERS, maxAge: 600 }));

  mountSystemRoutes(app, {
    anonymous,
    probes,
    db: deps.db,
    heartbeat: deps.coordination.heartbeat,
    now,
    version: VERSION,
    livePac: pacRouter !== undefined,
    pacRouter,
    smtp: smtpCheck.current,
    sandboxSat: deps.sandboxSat,
    backends: [authBackend, invoiceBackend],
  });
  app.all('/api/v1/*', routeToBackend);
  mountPortal(app, { ...receiptDeps, limit: portal, anonymous, rateLimits });
  // The console asks the API through this same app: one set of rules (credential, role, tenant, limits, audit).
  const consoleRoutes = mountConsole(app, {
    db: deps.db,
    now,
    accessTokens,
    secret: deps.jwtSecret,
    trustedProxies: proxies,
    anonymous,
    fetch: (request, env) => app.fetch(request, env),
  });
  return Object.assign(app, {
    backends: { auth: authBackend, invoices: invoiceBackend },
    /** The console's own router (/console), outside the OpenAPI document: its routes, for the tests. */
    console: consoleRoutes,
    /** What intakeReceived needs (Descarga Masiva feeds its packages through it). */
    receivedDeps,
    /** The SAT status refresh of received CFDI (POST /received-cfdis/{id}/refresh and the periodic task). */
    receivedStatus,
    worker,
    ready,
    /** The scheduler's hourly task: the scheduled Descarga Masiva sync of the tenants opted in (sat-downloads/sync.ts). */
    syncSatDownloads: () => runSatDownloadSync({ db: deps.db, now, masterKey: deps.masterKey, wakeJobs, logger: deps.logger }),
    /** The scheduler's hourly task: the automatic global invoices of the periods that ended. */
    issueScheduledGlobalInvoices: () => issueScheduledGlobalInvoices(receiptDeps),
    /** Greets the SMTP server now and logs the outcome (index.ts, at start); /health shows the last one. */
    checkSmtp: smtpCheck.run,
  });
}
