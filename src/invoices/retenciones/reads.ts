import { and, desc, eq, gte, lt, lte } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { retencionDocuments, retenciones, type CfdiStatus } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { notFound, ServiceError } from '../../lib/service-error.ts';
import { brandingOf } from '../cfdis/reads.ts';
import { pdfPool, type PdfPool } from '../cfdis/pdf-pool.ts';
import { toRetencion, toRetencionListItem, type RetencionRow } from './schemas.ts';

/** Reading retenciones: by ret_ id or UUID, the stored document, the list. */

type Scope = Pick<Actor, 'tenantId' | 'environment'>;
const scoped = (actor: Scope) => and(eq(retenciones.tenantId, actor.tenantId), eq(retenciones.environment, actor.environment));
/** A retención named by its ret_ id or its UUID (any case), within the caller's tenant and environment. */
const byRef = (actor: Scope, ref: string) => and(ref.startsWith('ret_') ? eq(retenciones.id, ref) : eq(retenciones.uuid, ref.toUpperCase()), scoped(actor));

export async function getRetencionRow(db: Db, actor: Scope, ref: string): Promise<RetencionRow> {
  const row = (await db.select().from(retenciones).where(byRef(actor, ref)))[0];
  if (!row) throw notFound('Retención');
  return row;
}

export const getRetencion = async (db: Db, actor: Scope, ref: string) => toRetencion(await getRetencionRow(db, actor, ref));

/** The stored document exactly as stamped; one not stamped has no fiscal document yet: 404 saying so. */
export async function getRetencionXml(db: Db, actor: Scope, ref: string): Promise<{ uuid: string; xml: Buffer; status: CfdiStatus }> {
  const row = (
    await db
      .select({ id: retenciones.id, status: retenciones.status, uuid: retenciones.uuid, xml: retencionDocuments.xml })
      .from(retenciones)
      .innerJoin(retencionDocuments, eq(retencionDocuments.retencionId, retenciones.id))
      .where(byRef(actor, ref))
  )[0];
  if (!row) throw notFound('Retención');
  if (!row.uuid)
    throw new ServiceError(
      'not_found',
      `Retención ${row.id} ${row.status === 'en_cola' ? 'is queued for stamping' : `is ${row.status}`}: it has no UUID, so no fiscal XML or PDF yet`,
      [{ field: 'id', issue: `${row.id} is not stamped (status ${row.status})` }],
    );
  return { uuid: row.uuid, xml: row.xml, status: row.status };
}

/**
 * The printed representation, rendered from the stored XML on the PDF pool (counted against the tenant's share) with
 * the tenant's branding, the sandbox mark in test mode and the cancelled mark once cancelled. Not cached: the PDF
 * cache is keyed by CFDI.
 */
export async function getRetencionPdf(deps: { db: Db; pdfPool?: PdfPool }, actor: Scope, ref: string): Promise<{ uuid: string; pdf: Uint8Array }> {
  const { uuid, xml, status } = await getRetencionXml(deps.db, actor, ref);
  const options = { sandbox: actor.environment === 'test', cancelled: status === 'cancelado', branding: await brandingOf(deps.db, actor.tenantId) };
  return { uuid, pdf: await (deps.pdfPool ?? pdfPool).render(xml.toString('utf8'), options, actor.tenantId) };
}

export interface RetencionListQuery {
  limit: number;
  cursor?: string;
  status?: CfdiStatus;
  receptor_rfc?: string;
  cve_retenc?: string;
  ejercicio?: number;
  desde?: string;
  hasta?: string;
}

/** Newest first, keyset on the time-sortable id: a page costs the same at any depth. */
export async function listRetenciones(db: Db, actor: Scope, q: RetencionListQuery) {
  const before = decodeCursor(q.cursor);
  const rows = await db
    .select({
      id: retenciones.id,
      uuid: retenciones.uuid,
      status: retenciones.status,
      folioInt: retenciones.folioInt,
      fechaExp: retenciones.fechaExp,
      cveRetenc: retenciones.cveRetenc,
      receptorRfc: retenciones.receptorRfc,
      receptorNombre: retenciones.receptorNombre,
      receptorNumRegIdTrib: retenciones.receptorNumRegIdTrib,
      mesIni: retenciones.mesIni,
      mesFin: retenciones.mesFin,
      ejercicio: retenciones.ejercicio,
      montoTotOperacion: retenciones.montoTotOperacion,
      montoTotRet: retenciones.montoTotRet,
      pac: retenciones.pac,
      createdAt: retenciones.createdAt,
    })
    .from(retenciones)
    .where(
      and(
        scoped(actor),
        before ? lt(retenciones.id, before) : undefined,
        q.status ? eq(retenciones.status, q.status) : undefined,
        q.receptor_rfc ? eq(retenciones.receptorRfc, q.receptor_rfc.toUpperCase()) : undefined,
        q.cve_retenc ? eq(retenciones.cveRetenc, q.cve_retenc) : undefined,
        q.ejercicio !== undefined ? eq(retenciones.ejercicio, q.ejercicio) : undefined,
        q.desde ? gte(retenciones.fechaExp, q.desde) : undefined,
        q.hasta ? lte(retenciones.fechaExp, q.hasta.length === 10 ? `${q.hasta}T23:59:59` : q.hasta) : undefined,
      ),
    )
    .orderBy(desc(retenciones.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, toRetencionListItem);
}
