import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DEFAULT_BOOT_LOCK_TIMEOUT_SECONDS } from './db/boot-lock.ts';
import { randomToken } from './lib/crypto.ts';
import { DEFAULT_EMAIL_DAILY_LIMIT } from './lib/plans.ts';
import { SAT_DESCARGA_MASIVA_DOWNLOAD_URL, SAT_DESCARGA_MASIVA_URL } from './pac/descarga-masiva.ts';
import { type ConfiguredPac, PAC_REGISTRY } from './pac/registry.ts';
import { SAT_CERTIFICATES_URL } from './pac/sat-certificates.ts';
import type { PacSetting } from './pac/types.ts';

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// 0 is accepted too (any free port: the tests' servers), but not advertised.
const PORT_NUMBER = 'must be a port number (1-65535)';

const EnvSchema = z.object({
  // Digits only: Number(' ') is 0, which would bind any free port instead of refusing the value.
  PORT: z.string().regex(/^\d+$/, PORT_NUMBER).transform(Number).pipe(z.number().max(65535, PORT_NUMBER)).default(3000),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'must be sqlite:<path> or postgres://user@host:port/database')
    .optional(),
  DATABASE_CONNECT_TIMEOUT_SECONDS: z.coerce
    .number({ message: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(0, 'must be at least 0')
    .max(3600, 'must be at most 3600')
    .default(30),
  DATABASE_POOL_SIZE: z.coerce
    .number({ message: 'must be a number of connections' })
    .int('must be a whole number of connections')
    .min(2, 'must be at least 2 (the boot lock holds one while the start-up work uses another)')
    .max(1000, 'must be at most 1000')
    .optional(),
  BOOT_LOCK_TIMEOUT_SECONDS: z.coerce
    .number({ message: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1')
    .max(86_400, 'must be at most 86400')
    .default(DEFAULT_BOOT_LOCK_TIMEOUT_SECONDS),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  MASTER_KEY: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/, 'must be 32 bytes as 64 hex characters or base64')
    .optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  PACS: z
    .string()
    .regex(/^\s*[a-z][a-z0-9_-]*(\s*,\s*[a-z][a-z0-9_-]*)*\s*$/, 'must be PAC names separated by commas, in the order to try them, e.g. finkok,sw')
    .optional(),
  PAC_AMBIGUOUS_WINDOW_SECONDS: z.coerce
    .number({ message: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1')
    .max(86_400, 'must be at most 86400')
    .default(600),
  PAC_RETRY_MAX_SECONDS: z.coerce
    .number({ message: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1')
    .max(300, 'must be at most 300')
    .default(300),
  SAT_CONSULTA_URL: z.url().optional(),
  SAT_RETENCIONES_CONSULTA_URL: z.url().optional(),
  SAT_CERTIFICATES_URL: z.url().default(SAT_CERTIFICATES_URL),
  SAT_69B_URL: z.url().optional(),
  BLOCK_69B_RECEIVERS: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),
  SAT_DESCARGA_MASIVA_URL: z.url().default(SAT_DESCARGA_MASIVA_URL),
  SAT_DESCARGA_MASIVA_DOWNLOAD_URL: z.url().default(SAT_DESCARGA_MASIVA_DOWNLOAD_URL),
  SAT_DOWNLOAD_POLL_SECONDS: z.coerce
    .number({ message: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1')
    .default(300),
  SAT_DOWNLOAD_STALLED_SECONDS: z.coerce
    .number({ message: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1')
    .default(259_200),
  CANCELLATION_POLL_SECONDS: z.coerce
    .number({ message: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1')
    .max(86_400, 'must be at most 86400')
    .default(300),
  JOB_LEASE_SECONDS: z.coerce
    .number({ message: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(3, 'must be at least 3')
    .max(3600, 'must be at most 3600')
    .default(30),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be comma-separated seconds, e.g. 0,5,300')
    .optional(),
  DEMO: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),
  // Tests only (tests/process/idempotency-crash.test.ts), not for operators: see Config.testHoldBeforeAnswer.
  TEST_HOLD_BEFORE_ANSWER: z.enum(['1'], { message: 'must be 1 or unset' }).optional(),
  REGISTRATION: z.enum(['open', 'closed'], { message: 'must be open or closed' }).default('open'),
  CORS_ORIGINS: z
    .string()
    .regex(/^(\*|https?:\/\/[^\s,/]+(\s*,\s*https?:\/\/[^\s,/]+)*)$/, 'must be * or comma-separated origins such as https://app.example.com')
    .optional(),
  HOST: z.string().min(1).optional(),
  TRUSTED_PROXIES: z
    .string()
    .refine(
      (v) => v.split(',').every((entry) => ipaddr.isValidCIDR(entry.trim()) || ipaddr.isValid(entry.trim())),
      'must be comma-separated IP addresses or CIDR ranges, e.g. 10.0.0.0/8,192.168.1.10',
    )
    .optional(),
  SQLITE_SYNCHRONOUS: z.enum(['full', 'normal'], { message: 'must be full or normal' }).default('full'),
  SMTP_URL: z
    .string()
    .refine(isSmtpUrl, 'must be smtp://user:password@host:port or smtps://user:password@host:port (user and password percent-encoded)')
    .optional(),
  SMTP_FROM: z
    .string()
    .regex(/^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'must be an address, e.g. facturas@example.com or "Facturas <facturas@example.com>"')
    .optional(),
  EMAIL_DAILY_LIMIT: z.coerce
    .number({ message: 'must be a number of recipients' })
    .int('must be a whole number of recipients')
    .min(1, 'must be at least 1')
    .max(1_000_000, 'must be at most 1000000')
    .default(DEFAULT_EMAIL_DAILY_LIMIT),
  EMAIL_TEST_CAPTURE: z
    .string()
    .regex(/^[^\s<>@",;]+@[^\s<>@",;]+\.[^\s<>@",;]+$/, 'must be one address, e.g. pruebas@example.com')
    .transform((v) => v.toLowerCase())
    .optional(),
  PUBLIC_BASE_URL: z.string().refine(isHttpOrigin, 'must be the http(s) address customers reach this server at, e.g. https://facturas.example.com').optional(),
  WORKERS: z.coerce
    .number({ message: 'must be a number of processes' })
    .int('must be a whole number of processes')
    .min(1, 'must be at least 1')
    .max(256, 'must be at most 256')
    .optional(),
});

/** Every PAC's settings, from the registry (SW's legacy PAC_* names among them): each PAC file declares its own. */
const PacSettingsSchema = z.object(
  Object.fromEntries(
    PAC_REGISTRY.flatMap((e) => e.settings).flatMap((s) =>
      [s.env, ...(s.legacy ? [s.legacy] : [])].map((name) => [name, s.url ? z.url().optional() : z.string().min(1).optional()] as const),
    ),
  ),
);

/**
 * One process per two cores: a process keeps about two busy while it issues, its event loop one and WebCrypto's
 * threads, where it signs, the other (docs/benchmarks.md: on 2 cores one process issues more per second than two,
 * with less CPU per invoice, and serves reads as fast at half the CPU).
 */
export const defaultWorkers = (cores: number): number => Math.max(1, Math.floor(cores / 2));

/**
 * Each process's PostgreSQL connections: 2 + 4 per core, at least 10 and at most 24 (2 cores: 10, 4: 18, 6 or more:
 * 24). A process spends most of a transaction waiting for the server's answers, so a few connections per core keep
 * its cores busy (10 is what docs/benchmarks.md measured on 2 cores); the cap keeps 3 instances, each with its pool
 * and its 2 listening connections, under PostgreSQL's default max_connections of 100.
 */
export const defaultPoolSize = (cores: number): number => Math.min(24, Math.max(10, 2 + 4 * cores));

/** An http(s) URL with a host and no query or fragment (a path prefix is kept, for a server behind a proxy's path). */
function isHttpOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.search === '' && url.hash === '' && url.username === '';
  } catch {
    return false;
  }
}

/** An SMTP server URL nodemailer can use: smtp:// (STARTTLS when offered) or smtps:// (TLS from the start), with a host. */
function isSmtpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '' && (url.pathname === '' || url.pathname === '/');
  } catch {
    return false;
  }
}

/** The database the service keeps its data in. */
export type DatabaseConfig = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

export interface Config {
  port: number;
  dataDir: string;
  /** The SQLite file: DATABASE_URL's `sqlite:` path, or DATA_DIR/cfdi.sqlite (unused on PostgreSQL). */
  databasePath: string;
  database: DatabaseConfig;
  /** How long a start waits for a PostgreSQL server that refuses, is not resolvable yet or is starting up. */
  databaseConnectTimeoutSeconds: number;
  /** PostgreSQL: the connections of each process's pool (DATABASE_POOL_SIZE; default defaultPoolSize of the cores). */
  databasePoolSize: number;
  /** PostgreSQL: how long a start waits for the boot lock another instance holds before it stops, saying so. */
  bootLockTimeoutSeconds: number;
  jwtSecret: string;
  masterKey: Buffer;
  logLevel: LogLevel;
  webhookAllowPrivate: boolean;
  webhookRetrySchedule?: number[];
  /** Seconds between polls of a pending cancellation. */
  cancellationPollSeconds: number;
  /** How long a claimed job stays this instance's without a heartbeat: how long a dead or frozen instance's jobs wait. */
  jobLeaseSeconds: number;
  /** On an empty database, create the demo tenant, admin, test key and CSD, and print them (src/demo.ts). */
  demo: boolean;
  /** `closed`: POST /auth/register answers 403; tenants are created with the create-tenant command (src/cli.ts). */
  registration: 'open' | 'closed';
  /** Browser origins allowed to call the API (`['*']`: any); none: no CORS headers. */
  corsOrigins?: string[];
  /** The address the server binds; none: every interface. */
  host?: string;
  /** Peers whose X-Forwarded-For names the client (addresses or CIDR ranges); none by default. */
  trustedProxies: string[];
  /** SQLite's synchronous pragma: `full` makes every acknowledged write survive a power loss; `normal` may lose the last ones. */
  sqliteSynchronous: 'full' | 'normal';
  /** Processes serving HTTP: 1 serves from this process alone; more, from that many workers under a supervisor (src/topology). */
  workers: number;
  /** Secret files this start created in DATA_DIR (first start): to be backed up. */
  generatedSecrets: string[];
  /**
   * The SMTP server invoices are emailed through, and the sender address; none: email_to and POST /cfdis/{id}/email
   * answer 400. `dailyLimit`: recipients a tenant may email per UTC day on the sandbox plan (plans raise it);
   * `testCapture`: the one mailbox every test-mode email goes to, which then may name any address.
   */
  smtp?: { url: string; from: string; dailyLimit: number; testCapture?: string };
  /** Where customers reach this server (receipts' self_invoice_url); none: receipts have no link (never the request's Host). */
  publicBaseUrl?: string;
  /**
   * Tests only: a request with an Idempotency-Key never answers once its route has committed (it logs "holding before
   * answer"), so a test can SIGKILL the server between a create's commit and its answer. Off unless TEST_HOLD_BEFORE_ANSWER=1.
   */
  testHoldBeforeAnswer: boolean;
  /**
   * The live PACs in the order to try them (PACS; by default the one whose settings are given), each with its settings
   * by variable name (src/pac/registry.ts builds them); none: live issuing answers 503.
   */
  pacs: ConfiguredPac[];
  /** SAT's ConsultaCFDIService the live PACs ask (SAT_CONSULTA_URL; default: production). */
  satConsultaUrl?: string;
  /** SAT's verification page for Retenciones, asked for a live retención's status (SAT_RETENCIONES_CONSULTA_URL; default: production). */
  satRetencionesConsultaUrl?: string;
  /** The base of SAT's certificate repository, where received CFDIs' stamping certificates are looked up (SAT_CERTIFICATES_URL). */
  satCertificatesUrl: string;
  /** SAT's Lista 69-B CSV, loaded daily as everyone's published list (SAT_69B_URL); none: only uploaded lists. */
  sat69bUrl?: string;
  /** BLOCK_69B_RECEIVERS: refuse to issue to a receptor on the Lista 69-B as definitivo (default off). */
  block69bReceivers: boolean;
  /**
   * SAT's Descarga Masiva (issue 39): the base of Autenticacion, SolicitaDescargaService and VerificaSolicitudDescargaService
   * (SAT_DESCARGA_MASIVA_URL), of DescargaMasivaService (SAT_DESCARGA_MASIVA_DOWNLOAD_URL), how often a request is
   * verified (SAT_DOWNLOAD_POLL_SECONDS, 300) and after how long one still accepted or in progress is stalled
   * (SAT_DOWNLOAD_STALLED_SECONDS, three days).
   */
  satDownloads: { url: string; downloadUrl: string; pollSeconds: number; stalledSeconds: number };
  /** How long an ambiguous answer keeps a document on its PAC before another may stamp it (PAC_AMBIGUOUS_WINDOW_SECONDS). */
  pacAmbiguousWindowSeconds: number;
  /** The longest wait between two attempts of a job that asks a PAC: a queued stamp, a duplicate's check or cancellation (PAC_RETRY_MAX_SECONDS). */
  pacRetryMaxSeconds: number;
  /** Lines the start logs as warnings (a legacy setting's name). */
  warnings: string[];
}

export class ConfigError extends Error {}

/**
 * Parse the environment once. Secrets that are not given are generated on first start into DATA_DIR
 * (mode 0600) so that a restart keeps sessions valid and encrypted keys readable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(emptyToUndefined(env, Object.keys(EnvSchema.shape)));
  const pacSettings = PacSettingsSchema.safeParse(emptyToUndefined(env, Object.keys(PacSettingsSchema.shape)));
  if (!parsed.success || !pacSettings.success) {
    const issues = [...(parsed.error?.issues ?? []), ...(pacSettings.error?.issues ?? [])];
    const problems = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const { pacs, warnings } = resolvePacs(e.PACS, pacSettings.data as Record<string, string | undefined>);
  if (e.SMTP_URL && !e.SMTP_FROM)
    throw new ConfigError('Invalid configuration: SMTP_FROM is required with SMTP_URL (the sender address, e.g. facturas@example.com)');
  if (e.SMTP_FROM && !e.SMTP_URL) throw new ConfigError('Invalid configuration: SMTP_FROM is set but SMTP_URL is not: set both to send invoices by email');
  const postgresUrl = e.DATABASE_URL && !e.DATABASE_URL.startsWith('sqlite:') ? e.DATABASE_URL : undefined;
  // Every instance on one PostgreSQL must share these: one generated per instance would not.
  if (postgresUrl && (!e.JWT_SECRET || !e.MASTER_KEY))
    throw new ConfigError('Invalid configuration: DATABASE_URL is PostgreSQL, so JWT_SECRET and MASTER_KEY must be set (every instance shares them)');
  const dataDir = resolve(e.DATA_DIR);
  // Only the service's user reads the database and the secrets; a directory that already exists keeps its mode.
  if (mkdirSync(dataDir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dataDir, 0o700);
  const generatedSecrets: string[] = [];
  const secret = (name: string, create: () => string) => readOrCreateSecret(join(dataDir, name), create, generatedSecrets);
  const jwtSecret = e.JWT_SECRET ?? secret('jwt-secret', () => randomToken(48));
  const masterKeyText = e.MASTER_KEY ?? secret('master-key', () => randomToken(32));
  const databasePath = e.DATABASE_URL?.startsWith('sqlite:') ? resolve(e.DATABASE_URL.slice('sqlite:'.length)) : join(dataDir, 'cfdi.sqlite');
  return {
    port: e.PORT,
    dataDir,
    databasePath,
    database: postgresUrl ? { engine: 'postgres', url: postgresUrl } : { engine: 'sqlite', path: databasePath },
    databaseConnectTimeoutSeconds: e.DATABASE_CONNECT_TIMEOUT_SECONDS,
    databasePoolSize: e.DATABASE_POOL_SIZE ?? defaultPoolSize(availableParallelism()),
    bootLockTimeoutSeconds: e.BOOT_LOCK_TIMEOUT_SECONDS,
    jwtSecret,
    masterKey: decodeKey(masterKeyText),
    logLevel: e.LOG_LEVEL,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'true',
    webhookRetrySchedule: e.WEBHOOK_RETRY_SCHEDULE?.split(',').map(Number),
    cancellationPollSeconds: e.CANCELLATION_POLL_SECONDS,
    jobLeaseSeconds: e.JOB_LEASE_SECONDS,
    testHoldBeforeAnswer: e.TEST_HOLD_BEFORE_ANSWER === '1',
    pacs,
    satConsultaUrl: e.SAT_CONSULTA_URL,
    satRetencionesConsultaUrl: e.SAT_RETENCIONES_CONSULTA_URL,
    satCertificatesUrl: e.SAT_CERTIFICATES_URL.replace(/\/+$/, ''),
    sat69bUrl: e.SAT_69B_URL,
    block69bReceivers: e.BLOCK_69B_RECEIVERS === 'true',
    satDownloads: {
      url: e.SAT_DESCARGA_MASIVA_URL,
      downloadUrl: e.SAT_DESCARGA_MASIVA_DOWNLOAD_URL,
      pollSeconds: e.SAT_DOWNLOAD_POLL_SECONDS,
      stalledSeconds: e.SAT_DOWNLOAD_STALLED_SECONDS,
    },
    pacAmbiguousWindowSeconds: e.PAC_AMBIGUOUS_WINDOW_SECONDS,
    pacRetryMaxSeconds: e.PAC_RETRY_MAX_SECONDS,
    warnings,
    smtp:
      e.SMTP_URL && e.SMTP_FROM
        ? { url: e.SMTP_URL, from: e.SMTP_FROM, dailyLimit: e.EMAIL_DAILY_LIMIT, ...(e.EMAIL_TEST_CAPTURE ? { testCapture: e.EMAIL_TEST_CAPTURE } : {}) }
        : undefined,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    demo: e.DEMO === 'true',
    registration: e.REGISTRATION,
    corsOrigins: e.CORS_ORIGINS?.split(',').map((o) => o.trim()),
    host: e.HOST,
    trustedProxies: e.TRUSTED_PROXIES?.split(',').map((entry) => entry.trim()) ?? [],
    sqliteSynchronous: e.SQLITE_SYNCHRONOUS,
    workers: e.WORKERS ?? defaultWorkers(availableParallelism()),
    generatedSecrets,
  };
}

function emptyToUndefined(env: Record<string, string | undefined>, keys: string[]) {
  const out: Record<string, string | undefined> = {};
  for (const key of keys) out[key] = env[key] === '' ? undefined : env[key];
  return out;
}

const andList = (names: string[]) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? ''));

/**
 * The live PACs in order: PACS when given (every name known, each listed PAC's settings all set, no settings of a PAC it
 * does not list); otherwise the one PAC whose settings are given. SW's legacy PAC_* names count as SW's, with a warning.
 */
function resolvePacs(list: string | undefined, given: Record<string, string | undefined>): { pacs: ConfiguredPac[]; warnings: string[] } {
  const fail = (problem: string): never => {
    throw new ConfigError(`Invalid configuration: ${problem}`);
  };
  const settingOf = (s: PacSetting) => given[s.env] ?? (s.legacy ? given[s.legacy] : undefined);
  const nameOf = (s: PacSetting) => (given[s.env] === undefined && s.legacy ? s.legacy : s.env);
  const legacy = PAC_REGISTRY.flatMap((e) => e.settings).filter((s) => s.legacy && given[s.legacy] !== undefined);
  const warnings = legacy.length
    ? [
        `${andList(legacy.map((s) => s.legacy!))} ${legacy.length > 1 ? 'are legacy names' : 'is a legacy name'}: they still work, read as ${andList(legacy.map((s) => s.env))}; rename them (PACS lists the providers)`,
      ]
    : [];
  const withSettings = PAC_REGISTRY.filter((e) => e.settings.some((s) => settingOf(s) !== undefined));
  let names: string[];
  if (list !== undefined) {
    names = list.split(',').map((n) => n.trim());
    const known = PAC_REGISTRY.map((e) => e.name);
    for (const n of names) if (!known.includes(n)) fail(`PACS: unknown PAC "${n}" (known: ${known.join(', ')})`);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) fail(`PACS: ${twice} is listed twice`);
    for (const e of withSettings)
      if (!names.includes(e.name)) {
        const set = e.settings.filter((s) => settingOf(s) !== undefined).map(nameOf);
        fail(
          `${andList(set)} ${set.length > 1 ? 'are' : 'is'} set but PACS does not list ${e.name}: add ${e.name} to PACS or unset ${set.length > 1 ? 'them' : 'it'}`,
        );
      }
  } else {
    if (withSettings.length > 1)
      fail(
        `PACS is required with the settings of several PACs (${withSettings.map((e) => e.name).join(', ')}): list them in the order to try, e.g. PACS=${withSettings.map((e) => e.name).join(',')}`,
      );
    names = withSettings.map((e) => e.name);
  }
  const pacs = names.map((name) => {
    const entry = PAC_REGISTRY.find((e) => e.name === name)!;
    const missing = entry.settings.filter((s) => settingOf(s) === undefined).map((s) => s.env);
    if (missing.length)
      fail(
        `${andList(missing)} ${missing.length > 1 ? 'are' : 'is'} required for the ${name} PAC (${list !== undefined ? 'PACS lists it' : 'its other settings are set'})`,
      );
    return { name, settings: Object.fromEntries(entry.settings.map((s) => [s.env, settingOf(s)!])) };
  });
  return { pacs, warnings };
}

function decodeKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new ConfigError('Invalid configuration: MASTER_KEY: must decode to 32 bytes');
  return key;
}

function readOrCreateSecret(path: string, create: () => string, created: string[]): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const secret = create();
  writeFileSync(path, secret + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  created.push(path);
  return secret;
}
