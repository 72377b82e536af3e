import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { withTransaction, type Tx } from '../../db/index.ts';
import { satDownloadPackages, satDownloads, satMetadata, type Environment, type SatDownloadStatus } from '../../db/schema/index.ts';
import { newId } from '../../lib/ids.ts';
import { readZip, type ZipEntry } from '../../lib/zip.ts';
import { PermanentJobError, RetryLaterError, type Job } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import { createDescargaMasivaClient, DescargaMasivaError, type DescargaMasivaClient, type DescargaQuery } from '../../pac/descarga-masiva.ts';
import { fielSigner } from '../fiel/service.ts';
import { sandboxDescargaClient } from './sandbox.ts';

/** The received-CFDI intake (src/invoices/received/intake.ts), injected: it dedupes by UUID, so handing a file twice is safe. */
export type SatIntake = (
  scope: { tenantId: string; environment: Environment },
  files: { name: string; bytes: Uint8Array }[],
  o: { satDownloadId: string },
) => Promise<unknown>;

export interface SatDownloadJobDeps {
  db: Db;
  now: () => Date;
  masterKey: Buffer;
  /** SAT_DESCARGA_MASIVA_URL, SAT_DESCARGA_MASIVA_DOWNLOAD_URL, SAT_DOWNLOAD_POLL_SECONDS, SAT_DOWNLOAD_STALLED_SECONDS. */
  satDownloads: { url: string; downloadUrl: string; pollSeconds: number; stalledSeconds: number; fetch?: typeof fetch };
  intake: SatIntake;
}

type Row = typeof satDownloads.$inferSelect;

/** A package unpacks to at most this (SAT's run to a few hundred MB; a ZIP bomb stops here). */
const PACKAGE_LIMITS = { maxEntries: 200_000, maxTotalBytes: 2 * 1024 * 1024 * 1024 };
/** SAT serves a package at most twice ("Maximo de descargas permitidas." the third time). */
const MAX_PACKAGE_DOWNLOADS = 2;

async function load(db: Db, id: string): Promise<Row | undefined> {
  return (await db.select().from(satDownloads).where(eq(satDownloads.id, id)))[0];
}

async function update(db: Db | Tx, id: string, now: Date, set: Partial<Row>, attempt = false) {
  await db
    .update(satDownloads)
    .set({ ...set, updatedAt: now.toISOString(), ...(attempt ? { attempts: sql`${satDownloads.attempts} + 1` } : {}) })
    .where(eq(satDownloads.id, id));
}

const queryOf = (r: Row): DescargaQuery => ({
  direction: r.direction,
  kind: r.kind,
  desde: r.desde,
  hasta: r.hasta,
  ...(r.tipo ? { tipo: r.tipo } : {}),
  ...(r.rfc ? { rfc: r.rfc } : {}),
});

/**
 * Test mode asks the simulator, live mode SAT: the same job code either way. A live client is kept per FIEL (its row
 * id changes when the FIEL is replaced), so its token serves the tenant's next polls until it expires.
 */
async function clientFor(deps: SatDownloadJobDeps, clients: Map<string, DescargaMasivaClient>, r: Row): Promise<DescargaMasivaClient> {
  const signer = await fielSigner(deps, r.tenantId, { environment: r.environment, purpose: 'descarga-masiva' });
  if (!signer) throw new PermanentJobError('the tenant has no FIEL (e.firma) any more: upload it with PUT /fiel and request again');
  if (r.environment === 'test') return sandboxDescargaClient(deps.db, { tenantId: r.tenantId, rfc: signer.rfc });
  const held = clients.get(signer.id);
  if (held) return held;
  const s = deps.satDownloads;
  const client = createDescargaMasivaClient(signer, { url: s.url, downloadUrl: s.downloadUrl, now: deps.now, ...(s.fetch ? { fetch: s.fetch } : {}) });
  // A bounded cache: the oldest goes first.
  if (clients.size >= 1000) clients.delete(clients.keys().next().value!);
  clients.set(signer.id, client);
  return client;
}

/** SAT's answer for a call that was made but could not be used now: asked again at the next poll, no attempt used up. */
const later = (deps: SatDownloadJobDeps, why: string) => new RetryLaterError(why, new Date(deps.now().getTime() + deps.satDownloads.pollSeconds * 1000));

/** A SAT call: a non-retryable failure (the e.firma refused) ends the request as failed; a retryable one retries the job. */
async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DescargaMasivaError && !err.retryable) throw new PermanentJobError(err.message);
    throw err;
  }
}

/**
 * Moves one request as far as it can go now, from its rows: send it (requested), verify it (accepted, in_progress:
 * again in SAT_DOWNLOAD_POLL_SECONDS, stalled past SAT_DOWNLOAD_STALLED_SECONDS), download each package not stored
 * yet and process each stored one not processed yet (finished), then downloaded. A job killed anywhere re-runs this
 * and continues from the rows.
 */
async function advance(deps: SatDownloadJobDeps, clients: Map<string, DescargaMasivaClient>, id: string): Promise<void> {
  let r = await load(deps.db, id);
  if (!r || !['requested', 'accepted', 'in_progress', 'finished'].includes(r.status)) return;
  // Made when a SAT call is due: packages already stored are processed without one (nor the FIEL, which may be gone).
  let held: DescargaMasivaClient | undefined;
  const row = r;
  const client = async () => (held ??= await clientFor(deps, clients, row));
  if (r.status === 'requested') {
    const c = await client();
    const s = await call(() => c.solicita(queryOf(r!)));
    const now = deps.now();
    const accepted = s.codEstatus === '5000' && s.idSolicitud;
    await update(
      deps.db,
      id,
      now,
      accepted
        ? { status: 'accepted', idSolicitud: s.idSolicitud!, codEstatus: s.codEstatus, mensaje: s.mensaje, requestedAt: now.toISOString() }
        : {
            status: 'rejected',
            codEstatus: s.codEstatus,
            mensaje: s.mensaje,
            error: `SAT refused the request: ${s.codEstatus} ${s.mensaje}`,
            finishedAt: now.toISOString(),
          },
      true,
    );
    if (!accepted) return;
    r = (await load(deps.db, id))!;
  }
  if (r.status === 'accepted' || r.status === 'in_progress') {
    const now = deps.now();
    if (now.getTime() - Date.parse(r.requestedAt ?? r.createdAt) >= deps.satDownloads.stalledSeconds * 1000) {
      await update(deps.db, id, now, {
        status: 'stalled',
        error: `still ${r.status} after ${deps.satDownloads.stalledSeconds} s`,
        finishedAt: now.toISOString(),
      });
      return;
    }
    const c = await client();
    const v = await call(() => c.verifica(r!.idSolicitud!));
    const base = { codEstatus: v.codEstatus, mensaje: v.mensaje, checkedAt: now.toISOString() };
    if (v.codEstatus !== '5000') {
      // 404 "Error No Controlado" and a token refused twice are SAT's passing trouble; 5004: SAT does not know the request.
      if (v.codEstatus === '5004') {
        await update(
          deps.db,
          id,
          now,
          { ...base, status: 'failed', error: `SAT does not know the request: ${v.codEstatus} ${v.mensaje}`, finishedAt: now.toISOString() },
          true,
        );
        return;
      }
      await update(deps.db, id, now, base, true);
      throw later(deps, `VerificaSolicitudDescarga answered ${v.codEstatus} ${v.mensaje}`);
    }
    const sat = { ...base, estadoSolicitud: v.estadoSolicitud ?? null, codigoEstadoSolicitud: v.codigoEstadoSolicitud ?? null, numeroCfdis: v.numeroCfdis };
    const ended = (status: SatDownloadStatus, error: string) => update(deps.db, id, now, { ...sat, status, error, finishedAt: now.toISOString() }, true);
    switch (v.estadoSolicitud) {
      case 1:
      case 2:
        await update(deps.db, id, now, { ...sat, status: v.estadoSolicitud === 1 ? 'accepted' : 'in_progress' }, true);
        throw later(deps, `SAT's EstadoSolicitud is ${v.estadoSolicitud}`);
      case 3:
        // The package rows and the status together: a re-run finds every package to download.
        // read committed: inserts a unique index guards, and one update
        await withTransaction(deps.db, { isolation: 'read committed', name: 'sat_downloads.finished' }, async (tx) => {
          await update(tx, id, now, { ...sat, status: 'finished', packages: v.paquetes }, true);
          for (const packageId of v.paquetes)
            await tx
              .insert(satDownloadPackages)
              .values({
                id: newId('satpkg', now.getTime()),
                tenantId: r!.tenantId,
                environment: r!.environment,
                satDownloadId: id,
                packageId,
                createdAt: now.toISOString(),
              })
              .onConflictDoNothing();
        });
        break;
      case 5:
        return ended(
          v.codigoEstadoSolicitud === '5004' ? 'empty' : 'rejected',
          `SAT rejected the request: ${v.codigoEstadoSolicitud ?? ''} ${v.mensaje}`.trim(),
        );
      case 6:
        return ended('expired', 'SAT let the request expire (EstadoSolicitud 6, Vencida)');
      default:
        return ended('failed', `SAT's EstadoSolicitud ${v.estadoSolicitud ?? 'missing'} (${v.codigoEstadoSolicitud ?? ''} ${v.mensaje})`);
    }
  }
  await downloadAndProcess(deps, (await load(deps.db, id))!, client);
}

async function downloadAndProcess(deps: SatDownloadJobDeps, r: Row, client: () => Promise<DescargaMasivaClient>) {
  const packages = await deps.db
    .select()
    .from(satDownloadPackages)
    .where(eq(satDownloadPackages.satDownloadId, r.id))
    .orderBy(asc(satDownloadPackages.packageId));
  for (const p of packages) {
    let bytes = p.bytes;
    if (!bytes) {
      if (p.downloads >= MAX_PACKAGE_DOWNLOADS) {
        const now = deps.now();
        await update(deps.db, r.id, now, {
          status: 'failed',
          error: `package ${p.packageId} was asked for ${p.downloads} times without being stored; SAT serves a package at most twice, so it is not asked again`,
          finishedAt: now.toISOString(),
        });
        return;
      }
      const c = await client();
      // The call is counted before it is made: a crash after SAT served it never lets our count fall behind SAT's.
      await deps.db
        .update(satDownloadPackages)
        .set({ downloads: sql`${satDownloadPackages.downloads} + 1` })
        .where(eq(satDownloadPackages.id, p.id));
      const d = await call(() => c.descargar(p.packageId));
      const now = deps.now();
      if (d.codEstatus !== '5000' || !d.paquete) {
        // SAT answered without serving it: that call did not count at SAT.
        await deps.db
          .update(satDownloadPackages)
          .set({ downloads: sql`${satDownloadPackages.downloads} - 1` })
          .where(eq(satDownloadPackages.id, p.id));
        await update(deps.db, r.id, now, { codEstatus: d.codEstatus, mensaje: d.mensaje }, true);
        if (/descargas permitidas/i.test(d.mensaje) || d.codEstatus === '5008') {
          await update(deps.db, r.id, now, {
            status: 'failed',
            error: `SAT refuses package ${p.packageId}: ${d.codEstatus} ${d.mensaje}`,
            finishedAt: now.toISOString(),
          });
          return;
        }
        throw later(deps, `Descargar ${p.packageId} answered ${d.codEstatus} ${d.mensaje}`);
      }
      bytes = d.paquete;
      // The bytes and the count that recorded the download, together: from here the package is never asked for again.
      // read committed: two updates on rows only this job writes
      await withTransaction(deps.db, { isolation: 'read committed', name: 'sat_downloads.package' }, async (tx) => {
        await tx.update(satDownloadPackages).set({ bytes, downloadedAt: now.toISOString() }).where(eq(satDownloadPackages.id, p.id));
        await update(tx, r.id, now, { codEstatus: d.codEstatus, mensaje: d.mensaje }, true);
      });
    }
    if (!p.processedAt) await processPackage(deps, r, p.id, readZip(new Uint8Array(bytes), PACKAGE_LIMITS, 'package'));
  }
  const now = deps.now();
  const [left] = await deps.db
    .select({ id: satDownloadPackages.id })
    .from(satDownloadPackages)
    .where(and(eq(satDownloadPackages.satDownloadId, r.id), isNull(satDownloadPackages.processedAt)))
    .limit(1);
  if (!left) await update(deps.db, r.id, now, { status: 'downloaded', error: null, finishedAt: now.toISOString() });
}

const METADATA_HEADER =
  'Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~EfectoComprobante~Estatus~FechaCancelacion';

/** Metadata packages: their rows upserted with the package marked processed; received CFDI packages: handed to the intake, then marked. */
async function processPackage(deps: SatDownloadJobDeps, r: Row, packageRowId: string, files: ZipEntry[]) {
  const now = deps.now();
  if (r.kind === 'xml') {
    // Received CFDI go to the intake; the tenant's own issued ones are already its own records: their package is kept.
    if (r.direction === 'received')
      await deps.intake(
        { tenantId: r.tenantId, environment: r.environment },
        files.filter((f) => /\.xml$/i.test(f.name)),
        { satDownloadId: r.id },
      );
    await deps.db.update(satDownloadPackages).set({ processedAt: now.toISOString() }).where(eq(satDownloadPackages.id, packageRowId));
    return;
  }
  const records = files
    .map((f) => Buffer.from(f.bytes).toString('utf8'))
    .filter((text) => text.startsWith(METADATA_HEADER))
    .flatMap((text) => text.split(/\r?\n/).slice(1))
    .map((line) => line.split('~'))
    .filter((f) => f.length >= 12 && f[0]);
  // read committed: upserts on a unique index, and one update
  await withTransaction(deps.db, { isolation: 'read committed', name: 'sat_downloads.metadata' }, async (tx) => {
    for (const f of records) {
      const values = {
        rfcEmisor: f[1]!,
        nombreEmisor: f[2]!,
        rfcReceptor: f[3]!,
        nombreReceptor: f[4]!,
        rfcPac: f[5]!,
        fechaEmision: f[6]!,
        fechaCertificacionSat: f[7]!,
        monto: f[8]!,
        efectoComprobante: f[9]!,
        estatus: f[10]!,
        fechaCancelacion: f[11] || null,
        satDownloadId: r.id,
        updatedAt: now.toISOString(),
      };
      await tx
        .insert(satMetadata)
        .values({
          id: newId('satmeta', now.getTime()),
          tenantId: r.tenantId,
          environment: r.environment,
          uuid: f[0]!.toUpperCase(),
          ...values,
          createdAt: now.toISOString(),
        })
        .onConflictDoUpdate({ target: [satMetadata.tenantId, satMetadata.environment, satMetadata.uuid], set: values });
    }
    await tx.update(satDownloadPackages).set({ processedAt: now.toISOString() }).where(eq(satDownloadPackages.id, packageRowId));
  });
}

export function satDownloadJobHandler(deps: SatDownloadJobDeps): JobHandler {
  const idOf = (job: Job) => String(job.payload.satDownloadId);
  const clients = new Map<string, DescargaMasivaClient>();
  return {
    run: (job) => advance(deps, clients, idOf(job)),
    // Attempts exhausted or a permanent failure: the request says why; its packages stay stored.
    giveUp: (job, error) => async (tx) => {
      const now = deps.now();
      await tx
        .update(satDownloads)
        .set({ status: 'failed', error: error instanceof Error ? error.message : String(error), finishedAt: now.toISOString(), updatedAt: now.toISOString() })
        .where(and(eq(satDownloads.id, idOf(job)), sql`${satDownloads.status} in ('requested', 'accepted', 'in_progress', 'finished')`));
    },
    maxBackoffMs: 300_000,
  };
}
