import { and, desc, eq, gte, inArray, isNotNull, lt, lte, sql } from 'drizzle-orm';
import { zipSync } from 'fflate';
import type { Db } from '../../db/client.ts';
import { cfdiDocuments, cfdis, tenantBranding, type CfdiStatus, type Environment, type LogoType } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { notFound, ServiceError } from '../../lib/service-error.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { balanceOf } from './payments.ts';
import { cachedPdf } from './pdf-cache.ts';
import { pdfPool } from './pdf-pool.ts';
import { toCfdi, toCfdiListItem, type CfdiRow } from './schemas.ts';
import { receiptIdOf } from '../receipts/ledger.ts';
import type { CfdiDeps } from './issue.ts';

/** Reading CFDIs: by id or UUID, their stored document and PDF, the list. */

export const scoped = (actor: Pick<Actor, 'tenantId' | 'environment'>) => and(eq(cfdis.tenantId, actor.tenantId), eq(cfdis.environment, actor.environment));
/** A CFDI named by its cfdi_ id or its UUID (any case), within the caller's tenant and environment. */
const byRef = (actor: Pick<Actor, 'tenantId' | 'environment'>, ref: string) =>
  and(ref.startsWith('cfdi_') ? eq(cfdis.id, ref) : eq(cfdis.uuid, ref.toUpperCase()), scoped(actor));

export interface CfdiRef {
  id: string;
  tenantId: string;
  environment: Environment;
  uuid: string | null;
  status: CfdiStatus;
  /** The client it was issued to with receptor_id. */
  clientId: string | null;
  /** The PAC that stamped it: its cancellation, acuse and SAT status go there. */
  pac: string | null;
  xml: Buffer;
}

/** A CFDI of the caller's tenant and environment, by cfdi_ id or UUID (any case), with its stored XML. */
export async function findCfdi(db: Db, actor: Pick<Actor, 'tenantId' | 'environment'>, ref: string): Promise<CfdiRef> {
  const row = (
    await db
      .select({
        id: cfdis.id,
        tenantId: cfdis.tenantId,
        environment: cfdis.environment,
        uuid: cfdis.uuid,
        status: cfdis.status,
        clientId: cfdis.clientId,
        pac: cfdis.pac,
        xml: cfdiDocuments.xml,
      })
      .from(cfdis)
      .innerJoin(cfdiDocuments, eq(cfdiDocuments.cfdiId, cfdis.id))
      .where(byRef(actor, ref))
  )[0];
  if (!row) throw notFound('CFDI');
  return row;
}

export async function getRow(db: Db, actor: Actor, id: string): Promise<CfdiRow> {
  const row = (
    await db
      .select()
      .from(cfdis)
      .where(and(eq(cfdis.id, id), scoped(actor)))
  )[0];
  if (!row) throw notFound('CFDI');
  return row;
}

export async function getCfdi(deps: CfdiDeps, actor: Actor, id: string) {
  const row = await getRow(deps.db, actor, id);
  const cfdi = { ...toCfdi(row), receipt_id: await receiptIdOf(deps.db, row.id) };
  if (row.tipo !== 'I' || cfdi.metodo_pago !== 'PPD' || !row.uuid) return cfdi;
  // A PPD invoice is paid by Pagos: show what is still owed and which instalments have been received.
  const { saldo, parcialidades } = await balanceOf(deps.db, actor, row.uuid, row.total);
  return { ...cfdi, saldo_insoluto: saldo.toNumber(), parcialidades: parcialidades.length };
}

/**
 * The stored document of a stamped CFDI, by UUID (case-insensitive) or by cfdi_ id. One that is not stamped has
 * no UUID and no fiscal document yet: 404 saying so.
 */
async function getStampedDocument(deps: CfdiDeps, actor: Actor, ref: string): Promise<{ id: string; uuid: string; xml: Buffer; status: CfdiStatus }> {
  const row = (
    await deps.db
      .select({ id: cfdis.id, status: cfdis.status, uuid: cfdis.uuid, xml: cfdiDocuments.xml })
      .from(cfdis)
      .innerJoin(cfdiDocuments, eq(cfdiDocuments.cfdiId, cfdis.id))
      .where(byRef(actor, ref))
  )[0];
  if (!row) throw notFound('CFDI');
  if (!row.uuid) {
    const why = row.status === 'en_cola' ? 'is queued for stamping' : `is ${row.status}`;
    throw new ServiceError('not_found', `CFDI ${row.id} ${why}: it has no UUID, so no fiscal XML or PDF yet`, [
      { field: 'uuid', issue: `${row.id} is not stamped (status ${row.status})` },
    ]);
  }
  return { id: row.id, uuid: row.uuid, xml: row.xml, status: row.status };
}

/** The stored document exactly as stamped. */
export const getCfdiXml = (deps: CfdiDeps, actor: Actor, ref: string) => getStampedDocument(deps, actor, ref);

/** What the tenant's documents show of its brand (PDF and email): its accent colour and logo, when it has them. */
export async function brandingOf(db: Db, tenantId: string): Promise<{ accentColor?: string; logo?: { bytes: Buffer; type: LogoType } }> {
  const brand = (await db.select().from(tenantBranding).where(eq(tenantBranding.tenantId, tenantId)))[0];
  return { accentColor: brand?.accentColor ?? undefined, logo: brand?.logo && brand.logoType ? { bytes: brand.logo, type: brand.logoType } : undefined };
}

/**
 * The printed representation of a stamped document, rendered from its stored XML with the tenant's branding, off the
 * event loop (the PDF pool), once per state (the PDF cache): GET /cfdis/{uuid}/pdf, the portal's download and the
 * emailed attachment are the same bytes. `owner`: whose share of the pool a render takes (the tenant, or the portal).
 */
export async function renderCfdiPdf(
  deps: Pick<CfdiDeps, 'db' | 'now' | 'pdfPool'>,
  doc: { id: string; tenantId: string; environment: Environment; status: CfdiStatus; xml: Buffer },
  owner = doc.tenantId,
): Promise<Uint8Array> {
  const options = { sandbox: doc.environment === 'test', cancelled: doc.status === 'cancelado', branding: await brandingOf(deps.db, doc.tenantId) };
  return cachedPdf({ db: deps.db, now: deps.now, pdfPool: deps.pdfPool ?? pdfPool }, { cfdiId: doc.id, tenantId: doc.tenantId, xml: doc.xml }, options, owner);
}

/** The printed representation, rendered from the stored XML with the tenant's branding, off the event loop. */
export async function getCfdiPdf(deps: CfdiDeps, actor: Actor, ref: string, owner?: string): Promise<{ uuid: string; pdf: Uint8Array }> {
  const { id, uuid, xml, status } = await getStampedDocument(deps, actor, ref);
  const pdf = await renderCfdiPdf(deps, { id, tenantId: actor.tenantId, environment: actor.environment, status, xml }, owner);
  return { uuid, pdf };
}

export interface ListQuery {
  limit: number;
  cursor?: string;
  status?: CfdiStatus;
  tipo?: string;
  receptor_rfc?: string;
  serie?: string;
  receptor_nombre?: string;
  uuid?: string;
  folio?: string;
  total_min?: string;
  total_max?: string;
  desde?: string;
  hasta?: string;
  external_id?: string;
  pac?: string;
}

/** A LIKE pattern's literal text: its wildcards and the escape character taken as themselves. */
const likeLiteral = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The list's filters (the search of GET /cfdis and of its ZIP), within the caller's tenant and environment. */
function listFilters(actor: Actor, q: Omit<ListQuery, 'limit' | 'cursor'>) {
  return and(
    scoped(actor),
    q.status ? eq(cfdis.status, q.status) : undefined,
    q.tipo ? eq(cfdis.tipo, q.tipo) : undefined,
    q.receptor_rfc ? eq(cfdis.receptorRfc, q.receptor_rfc.toUpperCase()) : undefined,
    q.serie ? eq(cfdis.serie, q.serie) : undefined,
    q.receptor_nombre ? sql`upper(${cfdis.receptorNombre}) like ${`%${likeLiteral(q.receptor_nombre.toUpperCase())}%`} escape '\\'` : undefined,
    // Stored upper case, as SAT prints it: equality keeps the unique index on uuid usable.
    q.uuid ? eq(cfdis.uuid, q.uuid.toUpperCase()) : undefined,
    q.folio ? eq(cfdis.folio, Number(q.folio)) : undefined,
    // Amounts are exact decimal text: compared as numbers by the engine, both sides converted alike.
    q.total_min ? sql`cast(${cfdis.total} as numeric) >= cast(${q.total_min} as numeric)` : undefined,
    q.total_max ? sql`cast(${cfdis.total} as numeric) <= cast(${q.total_max} as numeric)` : undefined,
    q.external_id !== undefined ? eq(cfdis.externalId, q.external_id) : undefined,
    q.pac ? eq(cfdis.pac, q.pac) : undefined,
    q.desde ? gte(cfdis.fecha, q.desde) : undefined,
    q.hasta ? lte(cfdis.fecha, q.hasta.length === 10 ? `${q.hasta}T23:59:59` : q.hasta) : undefined,
  );
}

/** At most this many XMLs in one ZIP of GET /cfdis/export.zip. */
export const EXPORT_LIMIT = 500;

/**
 * The stamped XMLs (exactly as stored) of every CFDI the list's filters match, newest first, as one ZIP of
 * `<uuid>.xml` entries; more than EXPORT_LIMIT match: refused (too_large), nothing is read.
 */
export async function exportCfdis(deps: CfdiDeps, actor: Actor, q: Omit<ListQuery, 'limit' | 'cursor'>): Promise<{ zip: Uint8Array; count: number }> {
  const where = and(listFilters(actor, q), isNotNull(cfdis.uuid));
  const ids = await deps.db
    .select({ id: cfdis.id })
    .from(cfdis)
    .where(where)
    .orderBy(desc(cfdis.id))
    .limit(EXPORT_LIMIT + 1);
  if (ids.length > EXPORT_LIMIT) {
    throw new ServiceError('too_large', `More than ${EXPORT_LIMIT} stamped CFDIs match these filters`, [
      { field: 'query', issue: `more than ${EXPORT_LIMIT} match: narrow the filters (dates, status, receptor)` },
    ]);
  }
  const files: Record<string, Uint8Array> = {};
  for (let i = 0; i < ids.length; i += 100) {
    const chunk = ids.slice(i, i + 100).map((r) => r.id);
    const rows = await deps.db
      .select({ uuid: cfdis.uuid, xml: cfdiDocuments.xml })
      .from(cfdis)
      .innerJoin(cfdiDocuments, eq(cfdiDocuments.cfdiId, cfdis.id))
      .where(and(scoped(actor), inArray(cfdis.id, chunk)))
      .orderBy(desc(cfdis.id));
    for (const row of rows) if (row.uuid) files[`${row.uuid}.xml`] = new Uint8Array(row.xml);
  }
  return { zip: zipSync(files, { level: 6 }), count: Object.keys(files).length };
}

/** Newest first, keyset on the time-sortable id: a page costs the same at any depth. */
export async function listCfdis(deps: CfdiDeps, actor: Actor, q: ListQuery) {
  const before = decodeCursor(q.cursor);
  // Only the listed columns: the JSON summary is the bulk of a row and the list does not show it.
  const rows = await deps.db
    .select({
      id: cfdis.id,
      uuid: cfdis.uuid,
      tipo: cfdis.tipo,
      status: cfdis.status,
      serie: cfdis.serie,
      folio: cfdis.folio,
      fecha: cfdis.fecha,
      receptorRfc: cfdis.receptorRfc,
      receptorNombre: cfdis.receptorNombre,
      moneda: cfdis.moneda,
      subtotal: cfdis.subtotal,
      total: cfdis.total,
      externalId: cfdis.externalId,
      metadata: cfdis.metadata,
      pac: cfdis.pac,
      createdAt: cfdis.createdAt,
    })
    .from(cfdis)
    .where(and(before ? lt(cfdis.id, before) : undefined, listFilters(actor, q)))
    .orderBy(desc(cfdis.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, toCfdiListItem);
}
