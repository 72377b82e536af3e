import { Dec } from '../decimal.ts';
import { child, childrenNamed, parseXml, type XmlNode } from '../xml.ts';

/**
 * Reconciliation of received PPD invoices (issue 39, build item 6): what the received REPs paid of each, and what the
 * received Egresos credited (TipoRelacion 01, nota de crédito; 07, aplicación de anticipo). Pure: facts in, one state
 * per invoice out, in exact decimals. The choices are in docs/decisions.md ("Reconciliation of received PPD invoices").
 */

type ReconciliationState = 'sin_pago' | 'parcial' | 'completo' | 'exceso';

/** A received Ingreso with MetodoPago PPD. */
export interface PpdInvoiceFacts {
  uuid: string;
  total: string;
  moneda: string;
  cancelled?: boolean;
}

/** A received REP (Pagos 2.0): one line per DoctoRelacionado, ImpPagado in MonedaDR (the paid invoice's currency). */
export interface PaymentFacts {
  uuid: string;
  cancelled?: boolean;
  doctos: { idDocumento: string; impPagado: string; monedaDR: string }[];
}

/** A received Egreso and the invoices it relates to by 01 or 07 (other relation types credit nothing). */
export interface CreditFacts {
  uuid: string;
  total: string;
  moneda: string;
  cancelled?: boolean;
  relacionados: { tipoRelacion: string; uuid: string }[];
}

export interface Reconciliation {
  uuid: string;
  state: ReconciliationState;
  /** What REPs paid, what Egresos credited, and their sum (amount_paid), in the invoice's currency. */
  paid: string;
  credited: string;
  amountPaid: string;
  /** total − amountPaid (negative on exceso). */
  balance: string;
  /** The documents counted: REP or Egreso UUID and its amount. */
  applied: { uuid: string; kind: 'pago' | 'nota_de_credito' | 'anticipo'; amount: string }[];
  /** Lines that name this invoice but are not counted, and why (another currency). */
  ignored: { uuid: string; issue: string }[];
}

const CREDIT_KINDS: Record<string, 'nota_de_credito' | 'anticipo'> = { '01': 'nota_de_credito', '07': 'anticipo' };

const key = (uuid: string) => uuid.trim().toUpperCase();

function stateOf(total: Dec, amountPaid: Dec): ReconciliationState {
  if (amountPaid.isZero() || amountPaid.isNegative()) return 'sin_pago';
  const c = amountPaid.cmp(total);
  return c < 0 ? 'parcial' : c === 0 ? 'completo' : 'exceso';
}

/**
 * Every non-cancelled PPD invoice with its state. An REP pays the invoice its DoctoRelacionado names, by ImpPagado
 * when MonedaDR is the invoice's Moneda; the same REP paying one invoice in two lines counts both. An Egreso relating
 * one invoice credits its whole Total; relating several (01 or 07), it is spread in the order it lists them, each up
 * to what that invoice still owes after its payments, and what is left falls on the last one (an exceso there).
 * Cancelled REPs, Egresos and invoices count for nothing.
 */
export function reconcile(input: { invoices: PpdInvoiceFacts[]; payments: PaymentFacts[]; credits: CreditFacts[] }): Reconciliation[] {
  const invoices = new Map(input.invoices.filter((i) => !i.cancelled).map((i) => [key(i.uuid), i]));
  const paid = new Map<string, Dec>();
  const applied = new Map<string, Reconciliation['applied']>();
  const ignored = new Map<string, Reconciliation['ignored']>();
  const push = <T>(map: Map<string, T[]>, k: string, v: T) => map.set(k, [...(map.get(k) ?? []), v]);

  for (const p of input.payments) {
    if (p.cancelled) continue;
    for (const d of p.doctos) {
      const k = key(d.idDocumento);
      const invoice = invoices.get(k);
      if (!invoice) continue;
      if (d.monedaDR !== invoice.moneda) {
        push(ignored, k, { uuid: p.uuid, issue: `MonedaDR ${d.monedaDR} is not the invoice's Moneda ${invoice.moneda}` });
        continue;
      }
      const amount = Dec.parse(d.impPagado);
      paid.set(k, (paid.get(k) ?? Dec.ZERO).add(amount));
      push(applied, k, { uuid: p.uuid, kind: 'pago', amount: amount.toString() });
    }
  }

  const credited = new Map<string, Dec>();
  const owed = (k: string) => {
    const invoice = invoices.get(k)!;
    return Dec.parse(invoice.total)
      .sub(paid.get(k) ?? Dec.ZERO)
      .sub(credited.get(k) ?? Dec.ZERO);
  };
  for (const c of input.credits) {
    if (c.cancelled) continue;
    const targets: { k: string; kind: 'nota_de_credito' | 'anticipo' }[] = [];
    for (const r of c.relacionados) {
      const kind = CREDIT_KINDS[r.tipoRelacion];
      const k = key(r.uuid);
      const invoice = invoices.get(k);
      if (!kind || !invoice || targets.some((t) => t.k === k)) continue;
      if (c.moneda !== invoice.moneda) {
        push(ignored, k, { uuid: c.uuid, issue: `the Egreso's Moneda ${c.moneda} is not the invoice's Moneda ${invoice.moneda}` });
        continue;
      }
      targets.push({ k, kind });
    }
    let left = Dec.parse(c.total);
    targets.forEach((t, i) => {
      const last = i === targets.length - 1;
      const due = owed(t.k);
      const amount = last ? left : due.isNegative() ? Dec.ZERO : due.cmp(left) < 0 ? due : left;
      left = left.sub(amount);
      credited.set(t.k, (credited.get(t.k) ?? Dec.ZERO).add(amount));
      push(applied, t.k, { uuid: c.uuid, kind: t.kind, amount: amount.toString() });
    });
  }

  return [...invoices].map(([k, invoice]) => {
    const total = Dec.parse(invoice.total);
    const p = paid.get(k) ?? Dec.ZERO;
    const cr = credited.get(k) ?? Dec.ZERO;
    const amountPaid = p.add(cr);
    return {
      uuid: invoice.uuid,
      state: stateOf(total, amountPaid),
      paid: p.toString(),
      credited: cr.toString(),
      amountPaid: amountPaid.toString(),
      balance: total.sub(amountPaid).toString(),
      applied: applied.get(k) ?? [],
      ignored: ignored.get(k) ?? [],
    };
  });
}

/** What reconciliation reads of one received document: an REP's lines or an Egreso's 01/07 relations (none otherwise). */
export interface ReconciliationLines {
  kind: 'pago' | '01' | '07';
  targetUuid: string;
  amount: string;
  moneda: string;
}

/** The lines of a received CFDI 4.0's XML: each DoctoRelacionado of a Pagos 2.0, each CfdiRelacionado 01/07 of an Egreso. */
export function reconciliationLinesOf(xml: string): ReconciliationLines[] {
  let root: XmlNode;
  try {
    root = parseXml(xml);
  } catch {
    return [];
  }
  const tipo = root.attrs.TipoDeComprobante;
  if (tipo === 'P') {
    const complemento = child(root, 'cfdi:Complemento');
    const pagos = complemento && child(complemento, 'pago20:Pagos');
    if (!pagos) return [];
    return childrenNamed(pagos, 'pago20:Pago').flatMap((p) =>
      childrenNamed(p, 'pago20:DoctoRelacionado').map((d) => ({
        kind: 'pago' as const,
        targetUuid: (d.attrs.IdDocumento ?? '').toUpperCase(),
        amount: d.attrs.ImpPagado ?? '0',
        moneda: d.attrs.MonedaDR ?? '',
      })),
    );
  }
  if (tipo === 'E')
    return childrenNamed(root, 'cfdi:CfdiRelacionados')
      .filter((r) => r.attrs.TipoRelacion === '01' || r.attrs.TipoRelacion === '07')
      .flatMap((r) =>
        childrenNamed(r, 'cfdi:CfdiRelacionado').map((c) => ({
          kind: r.attrs.TipoRelacion as '01' | '07',
          targetUuid: (c.attrs.UUID ?? '').toUpperCase(),
          amount: root.attrs.Total ?? '0',
          moneda: root.attrs.Moneda ?? '',
        })),
      );
  return [];
}
