import { and, eq, ne, notInArray, sql } from 'drizzle-orm';
import { Dec, sum } from '../../cfdi/decimal.ts';
import type { TaxLine } from '../../cfdi/model.ts';
import type { PagosModel, PaidDocument } from '../../cfdi/complements/pagos20/model.ts';
import { sumByTax } from '../../cfdi/rules/taxes.ts';
import { child, childrenNamed, parseXml, type XmlNode } from '../../cfdi/xml.ts';
import { cfdiDocuments, cfdiPaymentDocuments, cfdis, type Environment } from '../../db/schema/index.ts';
import type { ErrorDetail } from '../../lib/service-error.ts';
import type { PagoDocumentoRequest, PagoRequest } from './complements/pagos20.ts';
import type { DbOrTx, Tx } from '../../db/index.ts';

/**
 * The service side of Pagos 2.0: which invoice each payment pays, its balance before this receipt (tracked in
 * cfdi_payment_documents), and the recording of the instalments a new receipt takes.
 */
type Scope = { tenantId: string; environment: Environment };

/** The payments of an invoice by Pagos that still stand: a failed or cancelled receipt gives its payments back. */
const standingPaymentsFor = (scope: Scope, uuid: string) =>
  and(
    eq(cfdiPaymentDocuments.tenantId, scope.tenantId),
    eq(cfdiPaymentDocuments.environment, scope.environment),
    eq(cfdiPaymentDocuments.relatedUuid, uuid),
    notInArray(cfdis.status, ['fallido', 'cancelado']),
  );

/** An invoice's outstanding balance and the instalment numbers taken, from the Pagos that still stand. */
export async function balanceOf(db: DbOrTx, scope: Scope, uuid: string, total: string): Promise<{ saldo: Dec; parcialidades: number[] }> {
  const rows = await db
    .select({ pagado: cfdiPaymentDocuments.impPagado, n: cfdiPaymentDocuments.numParcialidad })
    .from(cfdiPaymentDocuments)
    .innerJoin(cfdis, eq(cfdis.id, cfdiPaymentDocuments.cfdiId))
    .where(standingPaymentsFor(scope, uuid));
  return { saldo: Dec.parse(total).sub(sum(rows.map((r) => Dec.parse(r.pagado)))), parcialidades: rows.map((r) => r.n) };
}

/** The Pagos that pay an invoice and still stand: an invoice with payments cannot be cancelled before them. */
export async function standingPaymentsOf(db: DbOrTx, scope: Scope, uuid: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ uuid: cfdis.uuid, id: cfdis.id })
    .from(cfdiPaymentDocuments)
    .innerJoin(cfdis, eq(cfdis.id, cfdiPaymentDocuments.cfdiId))
    .where(standingPaymentsFor(scope, uuid))
    .limit(10);
  return rows.map((r) => r.uuid ?? r.id);
}

/** The invoice's taxes summed over its conceptos, per tax, factor and rate: what a payment prorates. */
function invoiceTaxes(root: XmlNode): { objetoImp: string; traslados: TaxLine[]; retenciones: TaxLine[] } {
  const conceptos = childrenNamed(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto');
  const lines = (parent: string, name: string): TaxLine[] =>
    conceptos.flatMap((c) => {
      const impuestos = child(c, 'cfdi:Impuestos');
      const container = impuestos && child(impuestos, parent);
      return (container ? childrenNamed(container, name) : []).map(({ attrs: a }) => ({
        impuesto: a.Impuesto!,
        tipoFactor: a.TipoFactor!,
        tasaOCuota: a.TasaOCuota,
        base: Dec.parse(a.Base!),
        importe: a.Importe !== undefined ? Dec.parse(a.Importe) : undefined,
      }));
    });
  const byKey = (taxes: TaxLine[]) =>
    sumByTax(taxes).sort((a, b) => `${a.impuesto}|${a.tipoFactor}|${a.tasaOCuota ?? ''}`.localeCompare(`${b.impuesto}|${b.tipoFactor}|${b.tasaOCuota ?? ''}`));
  const traslados = byKey(lines('cfdi:Traslados', 'cfdi:Traslado'));
  const retenciones = byKey(lines('cfdi:Retenciones', 'cfdi:Retencion'));
  const objetos = new Set(conceptos.map((c) => c.attrs.ObjetoImp!));
  // One ObjetoImpDR for the document: 02 when any concepto is taxed, else the conceptos' common key.
  const objetoImp = objetos.has('02') || traslados.length + retenciones.length > 0 ? '02' : objetos.size === 1 ? [...objetos][0]! : '01';
  return { objetoImp, traslados, retenciones };
}

const EXTERNAL_FIELDS = ['moneda', 'imp_saldo_ant', 'serie', 'folio', 'objeto_imp', 'impuestos'] as const;

/**
 * Resolves every pagos[i].documentos[j]: an invoice of this tenant (vigente Ingreso, PPD, to the same receptor,
 * with a balance), or — named by uuid only and unknown here — a document issued elsewhere whose data the caller
 * sends. Problems are reported per field; the engine then checks the amounts.
 */
export async function resolvePaidDocuments(
  db: DbOrTx,
  scope: Scope,
  pagos: PagoRequest[],
  receptorRfc: string | undefined,
): Promise<{ docs: (PaidDocument | undefined)[][]; problems: ErrorDetail[] }> {
  const problems: ErrorDetail[] = [];
  const resolve = async (d: PagoDocumentoRequest, i: number, j: number): Promise<PaidDocument | undefined> => {
    const at = `pagos[${i}].documentos[${j}]`;
    const problem = (field: string, issue: string, rule?: string) => {
      problems.push(rule ? { field: `${at}.${field}`, issue, rule } : { field: `${at}.${field}`, issue });
      return undefined;
    };
    const row = await findInvoice(db, scope, d);
    if (!row) {
      if (d.cfdi_id) return problem('cfdi_id', `no CFDI ${d.cfdi_id} in this tenant and environment`);
      return externalDocument(db, scope, d, problem);
    }
    const name = d.cfdi_id ?? d.uuid;
    const sent = EXTERNAL_FIELDS.filter((f) => d[f] !== undefined);
    if (sent.length > 0) return problem(sent[0]!, `must not be sent for ${name}: it was issued here, so its data comes from the invoice`);
    if (!row.uuid) return problem(d.cfdi_id ? 'cfdi_id' : 'uuid', `${name} is ${row.status}: only a stamped invoice can be paid`);
    if (row.status !== 'vigente') return problem(d.cfdi_id ? 'cfdi_id' : 'uuid', `${name} is ${row.status}: only a vigente invoice can be paid`);
    if (row.tipo !== 'I') return problem(d.cfdi_id ? 'cfdi_id' : 'uuid', `${name} is of tipo ${row.tipo}: a Pago pays Ingreso invoices`);
    const root = parseXml(row.xml.toString('utf8'));
    if (root.attrs.MetodoPago !== 'PPD')
      return problem(d.cfdi_id ? 'cfdi_id' : 'uuid', `${name} was issued with metodo_pago PUE (paid on issue): only PPD invoices take a Pago`);
    if (receptorRfc && row.receptorRfc !== receptorRfc)
      return problem(d.cfdi_id ? 'cfdi_id' : 'uuid', `${name} was issued to ${row.receptorRfc}, not to this receptor ${receptorRfc}`);
    const { saldo, parcialidades } = await balanceOf(db, scope, row.uuid, row.total);
    const taxes = invoiceTaxes(root);
    return {
      uuid: row.uuid,
      serie: row.serie ?? undefined,
      folio: row.folio !== null ? String(row.folio) : undefined,
      moneda: row.moneda,
      saldoAnterior: saldo,
      nextParcialidad: Math.max(0, ...parcialidades) + 1,
      takenParcialidades: parcialidades,
      objetoImp: taxes.objetoImp,
      invoice: { total: Dec.parse(row.total), traslados: taxes.traslados, retenciones: taxes.retenciones },
    } satisfies PaidDocument;
  };
  // One document after another: the problems keep the request's order.
  const docs: (PaidDocument | undefined)[][] = [];
  for (const [i, p] of pagos.entries()) {
    const resolved: (PaidDocument | undefined)[] = [];
    for (const [j, d] of p.documentos.entries()) resolved.push(await resolve(d, i, j));
    docs.push(resolved);
  }
  return { docs, problems };
}

async function findInvoice(db: DbOrTx, scope: Scope, d: PagoDocumentoRequest) {
  const [row] = await db
    .select({
      id: cfdis.id,
      uuid: cfdis.uuid,
      tipo: cfdis.tipo,
      status: cfdis.status,
      serie: cfdis.serie,
      folio: cfdis.folio,
      moneda: cfdis.moneda,
      total: cfdis.total,
      receptorRfc: cfdis.receptorRfc,
      xml: cfdiDocuments.xml,
    })
    .from(cfdis)
    .innerJoin(cfdiDocuments, eq(cfdiDocuments.cfdiId, cfdis.id))
    .where(
      and(
        d.cfdi_id ? eq(cfdis.id, d.cfdi_id) : eq(cfdis.uuid, d.uuid!.toUpperCase()),
        eq(cfdis.tenantId, scope.tenantId),
        eq(cfdis.environment, scope.environment),
      ),
    );
  return row;
}

/** A document issued elsewhere: the caller supplies what the service would otherwise know. */
async function externalDocument(
  db: DbOrTx,
  scope: Scope,
  d: PagoDocumentoRequest,
  problem: (field: string, issue: string) => undefined,
): Promise<PaidDocument | undefined> {
  const uuid = d.uuid!.toUpperCase();
  // A UUID another issuer stamped here is not this tenant's to pay, whatever data comes with it.
  const [elsewhere] = await db
    .select({ id: cfdis.id })
    .from(cfdis)
    .where(and(eq(cfdis.uuid, uuid), ne(cfdis.tenantId, scope.tenantId)))
    .limit(1);
  if (elsewhere) {
    return problem('uuid', `no CFDI ${d.uuid} in this tenant and environment: a Pago pays the issuer's own invoices`);
  }
  const missing = (['moneda', 'imp_saldo_ant', 'num_parcialidad'] as const).filter((f) => d[f] === undefined);
  if (missing.length > 0) {
    return problem(
      missing[0]!,
      `is required: ${d.uuid} is not a CFDI issued here, so send its moneda, imp_saldo_ant and num_parcialidad (and objeto_imp with impuestos when taxed)`,
    );
  }
  return {
    uuid,
    serie: d.serie,
    folio: d.folio,
    moneda: d.moneda!,
    saldoAnterior: Dec.parse(d.imp_saldo_ant!),
    nextParcialidad: d.num_parcialidad!,
    takenParcialidades: [],
    objetoImp: d.objeto_imp ?? (d.impuestos ? '02' : '01'),
    sent: { traslados: d.impuestos?.traslados ?? [], retenciones: d.impuestos?.retenciones ?? [] },
  };
}

/** Records the instalments a new Pago takes, in the transaction that records the Pago. */
export async function recordPayments(tx: Tx, cfdiId: string, scope: Scope, pagos: PagosModel): Promise<void> {
  for (const p of pagos.pagos) {
    for (const d of p.documentos) {
      // paid_cfdi_id: the invoice when it was issued here, so the unique index refuses a standing instalment number twice.
      const relatedUuid = d.idDocumento.toUpperCase();
      const paid = tx
        .select({ id: cfdis.id })
        .from(cfdis)
        .where(and(eq(cfdis.uuid, relatedUuid), eq(cfdis.tenantId, scope.tenantId), eq(cfdis.environment, scope.environment)));
      await tx.insert(cfdiPaymentDocuments).values({
        cfdiId,
        tenantId: scope.tenantId,
        environment: scope.environment,
        relatedUuid,
        paidCfdiId: sql`(${paid})`,
        numParcialidad: d.numParcialidad,
        moneda: d.monedaDR,
        impSaldoAnt: d.impSaldoAnt.toString(),
        impPagado: d.impPagado.toString(),
        impSaldoInsoluto: d.impSaldoInsoluto.toString(),
      });
    }
  }
}

/**
 * A CFDI's status moved: a Pago that became fallido or cancelado frees its instalment numbers (another receipt may
 * take them), one that stands again (a withdrawn Pago stamped by an attempt already in flight) holds them again.
 */
export async function followPagoStatus(tx: Tx, cfdiId: string, status: string, at: Date): Promise<void> {
  const released = status === 'fallido' || status === 'cancelado' ? at.toISOString() : null;
  await tx.update(cfdiPaymentDocuments).set({ releasedAt: released }).where(eq(cfdiPaymentDocuments.cfdiId, cfdiId));
}
