import { and, asc, eq, ne } from 'drizzle-orm';
import { tfdCadena, type Tfd } from '../../cfdi/tfd.ts';
import { zonedToUtc } from '../../cfdi/time.ts';
import type { Db } from '../../db/client.ts';
import type { Tx } from '../../db/index.ts';
import { retencionDocuments, retenciones, retencionStampAttempts, type Environment } from '../../db/schema/index.ts';
import { PermanentJobError } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Stamper, StampAttemptLog } from '../cfdis/stamp-routing.ts';
import { followRoutedStamp } from '../cfdis/duplicate-stamps.ts';
import { unstampedError } from '../cfdis/stamping.ts';
import { retencionDuplicateStampKind } from './duplicate-stamps.ts';
import { failed, stamped, type RetencionStamp } from './lifecycle.ts';

/** A live retención's stamp: its sealed XML sent through the PAC failover router, as a queued CFDI's (cfdi.stamp). */
export const RETENCION_STAMP_JOB = 'retencion.stamp';

/** A retención's stamping attempts: retencion_stamp_attempts, what the failover router decides from. */
export const retencionStampAttemptLog: StampAttemptLog = {
  attemptsOf: (db, retencionId) =>
    db
      .select({ pac: retencionStampAttempts.pac, outcome: retencionStampAttempts.outcome, at: retencionStampAttempts.at })
      .from(retencionStampAttempts)
      .where(eq(retencionStampAttempts.retencionId, retencionId))
      .orderBy(asc(retencionStampAttempts.id)),
  record: async (db, retencion, attempt) => {
    await db.insert(retencionStampAttempts).values({ retencionId: retencion.id, tenantId: retencion.tenantId, ...attempt });
  },
};

/** The TFD as the retención stores it; FechaTimbrado is the PAC's local time in Mexico City, without a zone. */
export const stampOf = (xml: string, tfd: Tfd, pac: string): RetencionStamp => ({
  xml,
  uuid: tfd.uuid,
  fechaTimbrado: zonedToUtc(tfd.fechaTimbrado, 'America/Mexico_City').toISOString(),
  pac,
  tfd: { sello_sat: tfd.selloSat, certificado_sat: tfd.noCertificadoSat, cadena_original_sat: tfdCadena(tfd) },
});

/** Another retención here already has this UUID: the very same document was stamped before (as recordStamp checks for CFDIs). */
async function uuidTaken(tx: Tx, id: string, uuid: string): Promise<boolean> {
  const [holder] = await tx
    .select({ id: retenciones.id })
    .from(retenciones)
    .where(and(eq(retenciones.uuid, uuid), ne(retenciones.id, id)));
  return holder !== undefined;
}

/**
 * The queued stamp of a live retención: its stored sealed XML through the environment's stamper (the failover router
 * over retencion_stamp_attempts), with the CFDI stamp job's rules: a definitive refusal ends it fallido, anything else
 * is retried with backoff (or at the time the routing changes) until its attempts or its deadline run out.
 */
export function retencionStampJobHandler(deps: {
  db: Db;
  now: () => Date;
  stamperFor(environment: Environment): Stamper | undefined;
  logger: Logger;
}): JobHandler {
  const idOf = (job: { payload: Record<string, unknown> }) => job.payload.retencion_id as string;
  return {
    async run(job) {
      const [row] = await deps.db
        .select({ retencion: retenciones, xml: retencionDocuments.xml })
        .from(retenciones)
        .innerJoin(retencionDocuments, eq(retencionDocuments.retencionId, retenciones.id))
        .where(eq(retenciones.id, idOf(job)));
      if (row?.retencion.status !== 'en_cola') return; // stamped or failed meanwhile, or gone
      const { retencion } = row;
      const stamper = deps.stamperFor(retencion.environment);
      if (!stamper) throw new PermanentJobError(`no PAC configured for ${retencion.environment}`);
      const sealedXml = row.xml.toString('utf8');
      const { result, pac, attempts, retryAt } = await stamper.stamp(retencion, sealedXml, { tenantId: retencion.tenantId });
      deps.logger.debug('pac stamp', { retencion_id: retencion.id, attempt: job.attempts, pac, ok: result.ok });
      if (!result.ok) throw unstampedError(result, retryAt);
      return async (tx) => {
        const at = deps.now();
        if (await uuidTaken(tx, retencion.id, result.tfd.uuid)) {
          await failed(tx, retencion, `307: this exact document was already stamped (UUID ${result.tfd.uuid}); issue it again`, at);
          return;
        }
        // A stamp names the PAC that made it.
        const recorded = (await stamped(tx, retencion, stampOf(result.xml, result.tfd, pac!), at)) !== undefined;
        // As a CFDI's: the PACs left behind are asked whether they stamped it too, a late second stamp is cancelled.
        await followRoutedStamp(tx, retencionDuplicateStampKind, retencion, { uuid: result.tfd.uuid, pac: pac!, attempts, recorded }, sealedXml, at);
        if (recorded)
          return () => deps.logger.info('retención stamped from queue', { retencion_id: retencion.id, uuid: result.tfd.uuid, pac, attempts: job.attempts });
      };
    },
    giveUp(job, error) {
      const reason = error instanceof Error ? error.message : String(error);
      const retencion = { id: idOf(job), tenantId: job.tenantId!, environment: job.environment! };
      return async (tx) => {
        if ((await failed(tx, retencion, reason, deps.now())) !== undefined)
          return () => deps.logger.warn('retención stamping failed', { retencion_id: retencion.id, reason, attempts: job.attempts });
      };
    },
  };
}
