import { Dec, sum } from '../../cfdi/decimal.ts';
import type { PagosModel, PaidDocument, TaxGroup } from '../../cfdi/pagos.ts';
import { child, childrenNamed, parseXml } from '../../cfdi/xml.ts';
import { statement } from '../../db/prepared.ts';
import type { Environment } from '../../db/schema/index.ts';
import type { ErrorDetail } from '../../lib/errors.ts';
import type { PagoDocumentoRequest, PagoRequest } from './schemas.ts';

/**
 * The service side of Pagos 2.0: which invoice each payment pays, its balance before this receipt (tracked in
 * cfdi_payment_documents), and the recording of the instalments a new receipt takes.
 */
type Scope = { tenantId: string; environment: Environment };
/** A database or a transaction (statement() takes either). */
type Reader = object;

/** Pagos that still stand: a failed or cancelled receipt gives its payments back. */
const STANDING = "c.status not in ('fallido', 'cancelado')";

interface InvoiceRow {
  id: string;
  uuid: string | null;
  tipo: string;
  status: string;
  serie: string | null;
  folio: number | null;
  moneda: string;
  total: string;
  receptorRfc: string;
  xml: Buffer;
}

/** An invoice's outstanding balance and the instalment numbers taken, from the Pagos that still stand. */
export function balanceOf(db: Reader, scope: Scope, uuid: string, total: string): { saldo: Dec; parcialidades: number[] } {
  const rows = statement(
    db,
    `select p.imp_pagado as pagado, p.num_parcialidad as n from cfdi_payment_documents p join cfdis c on c.id = p.cfdi_id
     where p.tenant_id = ? and p.environment = ? and p.related_uuid = ? and ${STANDING}`,
  ).all(scope.tenantId, scope.environment, uuid) as { pagado: string; n: number }[];
  return { saldo: Dec.parse(total).sub(sum(rows.map((r) => Dec.parse(r.pagado)))), parcialidades: rows.map((r) => r.n) };
}

/** The Pagos that pay an invoice and still stand: an invoice with payments cannot be cancelled before them. */
export function standingPaymentsOf(db: Reader, scope: Scope, uuid: string): string[] {
  const rows = statement(
    db,
    `select distinct c.uuid as uuid, c.id as id from cfdi_payment_documents p join cfdis c on c.id = p.cfdi_id
     where p.tenant_id = ? and p.environment = ? and p.related_uuid = ? and ${STANDING} limit 10`,
  ).all(scope.tenantId, scope.environment, uuid) as { uuid: string | null; id: string }[];
  return rows.map((r) => r.uuid ?? r.id);
}

/** The invoice's taxes summed over its conceptos, per tax, factor and rate: what a payment prorates. */
function invoiceTaxes(xml: Buffer): { objetoImp: string; traslados: TaxGroup[]; retenciones: TaxGroup[] } {
  const root = parseXml(xml.toString('utf8'));
  const conceptos = childrenNamed(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto');
  const groups = { traslados: new Map<string, TaxGroup>(), retenciones: new Map<string, TaxGroup>() };
  for (const c of conceptos) {
    const impuestos = child(c, 'cfdi:Impuestos');
    if (!impuestos) continue;
    for (const [kind, parent, name] of [['traslados', 'cfdi:Traslados', 'cfdi:Traslado'], ['retenciones', 'cfdi:Retenciones', 'cfdi:Retencion']] as const) {
      const container = child(impuestos, parent);
      for (const t of container ? childrenNamed(container, name) : []) {
        const a = t.attrs;
        const key = `${a.Impuesto}|${a.TipoFactor}|${a.TasaOCuota ?? ''}`;
        const g = groups[kind].get(key);
        const base = Dec.parse(a.Base!);
        const importe = a.Importe !== undefined ? Dec.parse(a.Importe) : undefined;
        if (!g) groups[kind].set(key, { impuesto: a.Impuesto!, tipoFactor: a.TipoFactor!, tasaOCuota: a.TasaOCuota, base, importe });
        else groups[kind].set(key, { ...g, base: g.base.add(base), importe: importe && g.importe ? g.importe.add(importe) : g.importe });
      }
    }
  }
  const objetos = new Set(conceptos.map((c) => c.attrs.ObjetoImp!));
  // One ObjetoImpDR for the document: 02 when any concepto is taxed, else the conceptos' common key.
  const objetoImp = objetos.has('02') || groups.traslados.size + groups.retenciones.size > 0 ? '02' : objetos.size === 1 ? [...objetos][0]! : '01';
  const byKey = (m: Map<string, TaxGroup>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, g]) => g);
  return { objetoImp, traslados: byKey(groups.traslados), retenciones: byKey(groups.retenciones) };
}

const metodoPagoOf = (xml: Buffer) => /\sMetodoPago="([A-Z]{3})"/.exec(xml.toString('utf8', 0, 4000))?.[1];
const EXTERNAL_FIELDS = ['moneda', 'imp_saldo_ant', 'serie', 'folio', 'objeto_imp', 'impuestos'] as const;

/**
 * Resolves every pagos[i].documentos[j]: an invoice of this tenant (vigente Ingreso, PPD, to the same receptor,
 * with a balance), or — named by uuid only and unknown here — a document issued elsewhere whose data the caller
 * sends. Problems are reported per field; the engine then checks the amounts.
 */
export function resolvePaidDocuments(db: Reader, scope: Scope, pagos: PagoRequest[], receptorRfc: string | undefined): { docs: (PaidDocument | undefined)[][]; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  const docs = pagos.map((p, i) =>
    p.documentos.map((d, j) => {
      const at = `pagos[${i}].documentos[${j}]`;
      const problem = (field: string, issue: string, rule?: string) => {
        problems.push(rule ? { field: `${at}.${field}`, issue, rule } : { field: `${at}.${field}`, issue });
        return undefined;
      };
      const row = findInvoice(db, scope, d);
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
      if (metodoPagoOf(row.xml) !== 'PPD') return problem(d.cfdi_id ? 'cfdi_id' : 'uuid', `${name} was issued with metodo_pago PUE (paid on issue): only PPD invoices take a Pago`);
      if (receptorRfc && row.receptorRfc !== receptorRfc) return problem(d.cfdi_id ? 'cfdi_id' : 'uuid', `${name} was issued to ${row.receptorRfc}, not to this receptor ${receptorRfc}`);
      const { saldo, parcialidades } = balanceOf(db, scope, row.uuid, row.total);
      const taxes = invoiceTaxes(row.xml);
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
    }),
  );
  return { docs, problems };
}

function findInvoice(db: Reader, scope: Scope, d: PagoDocumentoRequest): InvoiceRow | undefined {
  const where = d.cfdi_id ? 'c.id = ?' : 'c.uuid = ?';
  return statement(
    db,
    `select c.id, c.uuid, c.tipo, c.status, c.serie, c.folio, c.moneda, c.total, c.receptor_rfc as receptorRfc, d.xml
     from cfdis c join cfdi_documents d on d.cfdi_id = c.id where ${where} and c.tenant_id = ? and c.environment = ?`,
  ).get(d.cfdi_id ?? d.uuid!.toUpperCase(), scope.tenantId, scope.environment) as InvoiceRow | undefined;
}

/** A document issued elsewhere: the caller supplies what the service would otherwise know. */
function externalDocument(db: Reader, scope: Scope, d: PagoDocumentoRequest, problem: (field: string, issue: string) => undefined): PaidDocument | undefined {
  const uuid = d.uuid!.toUpperCase();
  // A UUID another issuer stamped here is not this tenant's to pay, whatever data comes with it.
  if (statement(db, 'select 1 from cfdis where uuid = ? and tenant_id <> ?').get(uuid, scope.tenantId)) {
    return problem('uuid', `no CFDI ${d.uuid} in this tenant and environment: a Pago pays the issuer's own invoices`);
  }
  const missing = (['moneda', 'imp_saldo_ant', 'num_parcialidad'] as const).filter((f) => d[f] === undefined);
  if (missing.length > 0) {
    return problem(missing[0]!, `is required: ${d.uuid} is not a CFDI issued here, so send its moneda, imp_saldo_ant and num_parcialidad (and objeto_imp with impuestos when taxed)`);
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
export function recordPayments(tx: Reader, cfdiId: string, scope: Scope, pagos: PagosModel): void {
  for (const p of pagos.pagos) {
    for (const d of p.documentos) {
      statement(
        tx,
        `insert into cfdi_payment_documents (cfdi_id, tenant_id, environment, related_uuid, num_parcialidad, moneda, imp_saldo_ant, imp_pagado, imp_saldo_insoluto)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(cfdiId, scope.tenantId, scope.environment, d.idDocumento.toUpperCase(), d.numParcialidad, d.monedaDR, d.impSaldoAnt.toString(), d.impPagado.toString(), d.impSaldoInsoluto.toString());
    }
  }
}
