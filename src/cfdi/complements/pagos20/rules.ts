import { catalogEntry, inForce, isValidKey } from '../../../catalogs/index.ts';
import { Dec, sum } from '../../decimal.ts';
import type { Fail, TaxInput } from '../../input.ts';
import type { DoctoRelacionadoInput, PagoInput } from './input.ts';
import type { TaxLine } from '../../model.ts';
import { rfcProblem } from '../../rules/rfc.ts';
import { importeWindow, prepareTaxLine, sumByTax, type TaxRuleCodes } from '../../rules/taxes.ts';
import type { DoctoModel, PagoModel, PagosModel, PaidDocument } from './model.ts';

/**
 * Complemento para recepción de Pagos 2.0 (docs/sat-rules.md §8), pure: the caller resolves each paid document (its
 * balance before this REP, its taxes) and this module computes every amount and checks SAT's CRP rules (the
 * pago20:Pagos node is in xml.ts).
 */

const decimalsOf = (moneda: string) => Number(catalogEntry('c_Moneda', moneda)?.decimales ?? 2);
const ONE = Dec.parse('1');
/** Precision of intermediate currency conversions before the final rounding. */
const WORK = 12;

export function preparePagos(pagos: PagoInput[], docs: (PaidDocument | undefined)[][], ctx: { day: string; fecha: string }, fail: Fail): PagosModel {
  // Balances move within one REP too: a document paid twice here chains from the first payment.
  const running = new Map<string, { saldo: Dec; next: number; taken: Set<number> }>();
  const models = pagos.map((p, i) => preparePago(p, docs[i] ?? [], `pagos[${i}]`, ctx, running, fail));
  return { pagos: models, totales: totalesOf(models) };
}

function preparePago(
  p: PagoInput,
  docs: (PaidDocument | undefined)[],
  at: string,
  ctx: { day: string; fecha: string },
  running: Map<string, { saldo: Dec; next: number; taken: Set<number> }>,
  fail: Fail,
): PagoModel {
  // A date alone is 12:00:00, or the CFDI's Fecha when that is earlier on the same day: any day up to the receipt's fits.
  const noon = `${p.fecha_pago}T12:00:00`;
  const fechaPago = p.fecha_pago.length > 10 ? p.fecha_pago : p.fecha_pago === ctx.fecha.slice(0, 10) && noon > ctx.fecha ? ctx.fecha : noon;
  if (fechaPago > ctx.fecha) fail(`${at}.fecha_pago`, `is after the Fecha of this CFDI (${ctx.fecha}): a receipt follows the payment`);

  const forma = catalogEntry('c_FormaPago', p.forma_pago);
  if (p.forma_pago === '99') fail(`${at}.forma_pago`, 'must be the form actually used, not 99 (Por definir)', 'CRP20212');
  else if (!forma || !inForce(forma, ctx.day)) fail(`${at}.forma_pago`, `${p.forma_pago} is not a c_FormaPago key`, 'CRP20999');

  const monedaRow = catalogEntry('c_Moneda', p.moneda);
  if (p.moneda === 'XXX') fail(`${at}.moneda`, 'must be the currency of the payment, not XXX', 'CRP20213');
  else if (!monedaRow || !inForce(monedaRow, ctx.day)) fail(`${at}.moneda`, `${p.moneda} is not a c_Moneda key`, 'CRP20999');
  const dP = decimalsOf(p.moneda);
  let tipoCambioP = '1';
  /** TipoCambioP of a non-MXN payment once it is known to be valid: the default EquivalenciaDR of an MXN document. */
  let foreignRate: string | undefined;
  if (p.moneda === 'MXN') {
    if (p.tipo_cambio !== undefined && Dec.parse(p.tipo_cambio).cmp(ONE) !== 0)
      fail(`${at}.tipo_cambio`, 'must be 1 (or omitted) when moneda is MXN', 'CRP20215');
  } else if (p.tipo_cambio === undefined || Dec.parse(p.tipo_cambio).isZero()) {
    fail(`${at}.tipo_cambio`, `is required (MXN per ${p.moneda}) when moneda is not MXN`, 'CRP20214');
  } else {
    tipoCambioP = foreignRate = p.tipo_cambio;
  }

  const monto = Dec.parse(p.monto);
  if (monto.isZero()) fail(`${at}.monto`, 'must be greater than 0', 'CRP20218');
  if (monto.decimals > dP) fail(`${at}.monto`, `has more decimals than ${p.moneda} allows (${dP})`, 'CRP20219');

  checkBankData(p, at, forma, fail);

  const documentos: DoctoModel[] = [];
  docs.forEach((doc, j) => {
    if (!doc) return; // the caller already reported why
    const d = prepareDocto(p.documentos[j]!, doc, `${at}.documentos[${j}]`, { monedaP: p.moneda, tipoCambioP: foreignRate, day: ctx.day }, running, fail);
    if (d) documentos.push(d);
  });

  // Monto covers what is applied (CRP20217; across currencies within SAT's margins, CRP20276).
  if (documentos.length === docs.length && !monto.isZero()) {
    const applied = sum(documentos.map((d) => d.impPagado.div(Dec.parse(d.equivalenciaDR), WORK))).trunc(dP);
    if (applied.cmp(monto) > 0) {
      const mixed = documentos.some((d) => d.monedaDR !== p.moneda);
      const lowest = mixed ? sum(documentos.map((d) => lowerLimit(d))).trunc(dP) : applied;
      if (!mixed) fail(`${at}.monto`, `is less than the sum of imp_pagado (${applied.toString()} ${p.moneda})`, 'CRP20217');
      else if (monto.cmp(lowest) < 0)
        fail(
          `${at}.monto`,
          `is less than the documents' imp_pagado converted to ${p.moneda} (${applied.toString()}, lowest admissible ${lowest.toString()})`,
          'CRP20276',
        );
    }
  }

  const { trasladosP, retencionesP } = impuestosP(documentos);
  return {
    fechaPago,
    formaDePagoP: p.forma_pago,
    monedaP: p.moneda,
    tipoCambioP,
    monto: monto.round(Math.max(dP, 0)),
    banco: {
      NumOperacion: p.num_operacion,
      RfcEmisorCtaOrd: p.rfc_emisor_cta_ord,
      NomBancoOrdExt: p.nom_banco_ord_ext,
      CtaOrdenante: p.cta_ordenante,
      RfcEmisorCtaBen: p.rfc_emisor_cta_ben,
      CtaBeneficiario: p.cta_beneficiario,
    },
    documentos,
    trasladosP,
    retencionesP,
  };
}

/** Bank data only for banked forms, in the shapes c_FormaPago gives (CRP20221–20228). */
function checkBankData(p: PagoInput, at: string, forma: Record<string, string> | undefined, fail: Fail): void {
  if (!forma) return;
  const banked = forma.bancarizado === '1';
  const check = (field: keyof PagoInput, allowedCol: string, rule: string, patternCol?: string, patternRule?: string) => {
    const v = p[field] as string | undefined;
    if (v === undefined) return;
    if (!banked || forma[allowedCol] !== '1') {
      fail(`${at}.${field}`, `must not be sent with forma_pago ${p.forma_pago} (${forma.descripcion})`, rule);
      return;
    }
    const rfcIssue = field.startsWith('rfc_') ? rfcProblem(v) : undefined;
    if (rfcIssue) fail(`${at}.${field}`, rfcIssue);
    const pattern = patternCol ? forma[patternCol] : undefined;
    if (pattern && !new RegExp(`^(?:${pattern})$`).test(v)) fail(`${at}.${field}`, `must match ${pattern} for forma_pago ${p.forma_pago}`, patternRule);
  };
  check('rfc_emisor_cta_ord', 'rfc_emisor_cuenta_ordenante', 'CRP20221');
  check('cta_ordenante', 'cuenta_ordenante', 'CRP20224', 'patron_cuenta_ordenante', 'CRP20225');
  check('rfc_emisor_cta_ben', 'rfc_emisor_cuenta_beneficiario', 'CRP20227');
  check('cta_beneficiario', 'cuenta_beneficiario', 'CRP20228', 'patron_cuenta_beneficiario', 'CRP20226');
  if (p.nom_banco_ord_ext !== undefined && p.rfc_emisor_cta_ord !== 'XEXX010101000') {
    fail(`${at}.nom_banco_ord_ext`, 'is only for a foreign ordering bank (rfc_emisor_cta_ord XEXX010101000)', 'CRP20223');
  }
  if (p.rfc_emisor_cta_ord === 'XEXX010101000' && p.nom_banco_ord_ext === undefined) {
    fail(`${at}.nom_banco_ord_ext`, 'is required when rfc_emisor_cta_ord is XEXX010101000', 'CRP20223');
  }
}

function prepareDocto(
  req: DoctoRelacionadoInput,
  doc: PaidDocument,
  at: string,
  p: { monedaP: string; tipoCambioP?: string; day: string },
  running: Map<string, { saldo: Dec; next: number; taken: Set<number> }>,
  fail: Fail,
): DoctoModel | undefined {
  const monedaRow = catalogEntry('c_Moneda', doc.moneda);
  if (doc.moneda === 'XXX') {
    fail(`${at}.moneda`, 'the paid document cannot be in XXX', 'CRP20236');
    return undefined;
  }
  if (!monedaRow) {
    fail(`${at}.moneda`, `${doc.moneda} is not a c_Moneda key`, 'CRP20999');
    return undefined;
  }
  const dDR = Number(monedaRow.decimales);

  // EquivalenciaDR: units of the document's currency per unit of the payment's (CRP20237/20238).
  let equivalencia = '1';
  if (doc.moneda === p.monedaP) {
    if (req.equivalencia !== undefined && Dec.parse(req.equivalencia).cmp(ONE) !== 0)
      fail(`${at}.equivalencia`, 'must be 1 (or omitted) when the document and the payment share a currency', 'CRP20238');
  } else if (req.equivalencia !== undefined) {
    equivalencia = Dec.parse(req.equivalencia).round(10).trim().toString();
  } else if (doc.moneda === 'MXN' && p.tipoCambioP !== undefined) {
    equivalencia = Dec.parse(p.tipoCambioP).trim().toString(); // MXN per unit of MonedaP is exactly TipoCambioP
  } else {
    fail(
      `${at}.equivalencia`,
      `is required: the document is in ${doc.moneda} and the payment in ${p.monedaP} (units of ${doc.moneda} per 1 ${p.monedaP})`,
      'CRP20237',
    );
    return undefined;
  }

  const state = running.get(doc.uuid) ?? { saldo: doc.saldoAnterior, next: doc.nextParcialidad, taken: new Set(doc.takenParcialidades) };
  running.set(doc.uuid, state);
  const numParcialidad = req.num_parcialidad ?? state.next;
  if (numParcialidad > 999) fail(`${at}.num_parcialidad`, `${doc.uuid} would reach instalment ${numParcialidad}: SAT allows at most 999`, 'CRP20999');
  if (state.taken.has(numParcialidad))
    fail(`${at}.num_parcialidad`, `instalment ${numParcialidad} of ${doc.uuid} is already covered by another payment receipt`);

  const impPagado = Dec.parse(req.imp_pagado);
  const saldoAnt = state.saldo.round(dDR);
  if (!(saldoAnt.cmp(Dec.ZERO) > 0)) {
    fail(`${at}.imp_pagado`, `${doc.uuid} has no outstanding balance: it is fully paid`, 'CRP20239');
    return undefined;
  }
  if (impPagado.isZero()) fail(`${at}.imp_pagado`, 'must be greater than 0', 'CRP20241');
  if (impPagado.decimals > dDR) fail(`${at}.imp_pagado`, `has more decimals than ${doc.moneda} allows (${dDR})`, 'CRP20242');
  if (impPagado.cmp(saldoAnt) > 0) {
    fail(`${at}.imp_pagado`, `${impPagado.toString()} exceeds the outstanding balance of ${doc.uuid} (${saldoAnt.toString()} ${doc.moneda})`, 'CRP20244');
    return undefined;
  }
  const pagado = impPagado.round(dDR);
  const insoluto = saldoAnt.sub(pagado);
  state.saldo = insoluto;
  state.taken.add(numParcialidad);
  state.next = Math.max(state.next, numParcialidad + 1);

  if (!/^0[1-8]$/.test(doc.objetoImp) || !isValidKey('c_ObjetoImp', doc.objetoImp, p.day))
    fail(`${at}.objeto_imp`, `${doc.objetoImp} is not a c_ObjetoImp key`, 'CRP20245');
  const { traslados, retenciones } = doc.invoice ? prorate(doc.invoice, pagado, dDR) : checkSentTaxes(doc.sent, at, p.day, fail);
  const lines = [...traslados, ...retenciones];
  if (doc.objetoImp === '02' && lines.length === 0)
    fail(`${at}.impuestos`, 'are required: objeto_imp 02 means the document carries taxes (ImpuestosDR)', 'CRP20246');
  if (['01', '03', '04', '05'].includes(doc.objetoImp) && lines.length > 0)
    fail(`${at}.impuestos`, `must not be sent with objeto_imp ${doc.objetoImp}`, 'CRP20247');
  if (['06', '08'].includes(doc.objetoImp) && lines.some((t) => t.impuesto !== '001'))
    fail(`${at}.impuestos`, `objeto_imp ${doc.objetoImp} allows only an ISR (001) retention`, 'CRP20278');
  if (doc.objetoImp === '07' && (lines.some((t) => t.impuesto === '002') || !traslados.some((t) => t.impuesto === '003')))
    fail(`${at}.impuestos`, 'objeto_imp 07 allows no IVA and requires an IEPS (003) traslado', 'CRP20279');

  return {
    idDocumento: doc.uuid,
    serie: doc.serie,
    folio: doc.folio,
    monedaDR: doc.moneda,
    equivalenciaDR: equivalencia,
    numParcialidad,
    impSaldoAnt: saldoAnt,
    impPagado: pagado,
    impSaldoInsoluto: insoluto,
    objetoImpDR: doc.objetoImp,
    traslados: doc.objetoImp === '02' || doc.objetoImp > '05' ? traslados : [],
    retenciones: doc.objetoImp === '02' || doc.objetoImp > '05' ? retenciones : [],
  };
}

/**
 * The invoice's taxes in proportion to the amount paid (docs/sat-rules.md §8): BaseDR = Base × ImpPagado / Total, ImporteDR
 * likewise, at the document currency's decimals. An ImporteDR the rounding pushed outside SAT's window around
 * BaseDR × Tasa (CRP20254/20261) is taken from that product instead.
 */
function prorate(invoice: NonNullable<PaidDocument['invoice']>, pagado: Dec, decimals: number) {
  const share = (x: Dec) => x.mul(pagado).div(invoice.total, decimals);
  const line = (t: TaxLine): TaxLine => {
    const base = share(t.base);
    if (t.tipoFactor === 'Exento' || t.importe === undefined) return { ...t, base, importe: undefined };
    let importe = share(t.importe);
    if (t.tipoFactor === 'Tasa' && t.tasaOCuota) {
      const tasa = Dec.parse(t.tasaOCuota);
      const { low, high } = importeWindow(base, tasa, decimals);
      if (importe.cmp(low) < 0 || importe.cmp(high) > 0) importe = base.mul(tasa).round(decimals);
    }
    return { ...t, base, importe };
  };
  const positive = (t: TaxLine) => t.base.cmp(Dec.ZERO) > 0;
  return { traslados: invoice.traslados.map(line).filter(positive), retenciones: invoice.retenciones.map(line).filter(positive) };
}

const DR_CODES: Record<'traslado' | 'retencion', TaxRuleCodes> = {
  traslado: {
    base: 'CRP20255',
    impuesto: 'CRP20256',
    tasa: 'CRP20260',
    importe: 'CRP20261',
    exentoRetencion: 'CRP20252',
    exentoBare: 'CRP20258',
    required: 'CRP20259',
  },
  retencion: {
    base: 'CRP20249',
    impuesto: 'CRP20250',
    tasa: 'CRP20253',
    importe: 'CRP20254',
    exentoRetencion: 'CRP20252',
    exentoBare: 'CRP20258',
    required: 'CRP20253',
  },
};

/** A document issued elsewhere: its DR taxes as sent, checked like concept taxes (CRP20249–20261). */
function checkSentTaxes(sent: PaidDocument['sent'], at: string, day: string, fail: Fail): { traslados: TaxLine[]; retenciones: TaxLine[] } {
  const defined = <T>(x: T | undefined): x is T => x !== undefined;
  const check = (kind: 'traslado' | 'retencion', lines: TaxInput[] = []) =>
    lines
      .map((t, k) => prepareTaxLine(t, `${at}.impuestos.${kind === 'traslado' ? 'traslados' : 'retenciones'}[${k}]`, kind, DR_CODES[kind], day, fail))
      .filter(defined);
  return { traslados: check('traslado', sent?.traslados), retenciones: check('retencion', sent?.retenciones) };
}

/** Lowest payment-currency amount an ImpPagado can stand for, given the decimals written (CRP20275/20276). */
function lowerLimit(d: DoctoModel): Dec {
  const halfD = Dec.parse(`0.${'0'.repeat(d.impPagado.decimals)}5`);
  const equiv = Dec.parse(d.equivalenciaDR);
  const halfE = Dec.parse(`0.${'0'.repeat(Math.max(equiv.decimals, 10))}5`);
  return d.impPagado.sub(halfD).div(equiv.add(halfE).sub(Dec.parse('0.0000000000000001')), WORK);
}

/** ImpuestosP: the DR taxes converted to the payment currency (÷ EquivalenciaDR), one line per tax and rate. */
function impuestosP(documentos: DoctoModel[]): { trasladosP: TaxLine[]; retencionesP: { impuesto: string; importe: Dec }[] } {
  const retenciones = new Map<string, Dec>();
  const converted: TaxLine[] = [];
  for (const d of documentos) {
    const equiv = Dec.parse(d.equivalenciaDR);
    const conv = (x: Dec) => x.div(equiv, WORK);
    for (const t of d.traslados) converted.push({ ...t, base: conv(t.base), importe: t.importe && conv(t.importe) });
    for (const r of d.retenciones) retenciones.set(r.impuesto, (retenciones.get(r.impuesto) ?? Dec.ZERO).add(conv(r.importe!)));
  }
  const six = (x: Dec) => x.round(6);
  return {
    trasladosP: sumByTax(converted)
      .sort((a, b) => `${a.impuesto}${a.tipoFactor}${a.tasaOCuota}`.localeCompare(`${b.impuesto}${b.tipoFactor}${b.tasaOCuota}`))
      .map((t) => ({ ...t, base: six(t.base), importe: t.importe && six(t.importe) })),
    retencionesP: [...retenciones.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([impuesto, importe]) => ({ impuesto, importe: six(importe) })),
  };
}

/** Totales in MXN at 2 decimals: each ImpuestosP amount × TipoCambioP, summed per tax/rate (CRP20201–20211). */
function totalesOf(pagos: PagoModel[]): [string, Dec][] {
  const acc = new Map<string, Dec>();
  const add = (name: string, x: Dec, tc: Dec) => acc.set(name, (acc.get(name) ?? Dec.ZERO).add(x.mul(tc)));
  const IVA_RATE: Record<string, string> = { '0.160000': '16', '0.080000': '8', '0.000000': '0' };
  const RET: Record<string, string> = { '001': 'ISR', '002': 'IVA', '003': 'IEPS' };
  for (const p of pagos) {
    const tc = Dec.parse(p.tipoCambioP);
    for (const r of p.retencionesP) if (RET[r.impuesto]) add(`TotalRetenciones${RET[r.impuesto]}`, r.importe, tc);
    for (const t of p.trasladosP) {
      if (t.impuesto !== '002') continue;
      if (t.tipoFactor === 'Exento') add('TotalTrasladosBaseIVAExento', t.base, tc);
      const rate = t.tipoFactor === 'Tasa' && t.tasaOCuota ? IVA_RATE[t.tasaOCuota] : undefined;
      if (rate) {
        add(`TotalTrasladosBaseIVA${rate}`, t.base, tc);
        add(`TotalTrasladosImpuestoIVA${rate}`, t.importe!, tc);
      }
    }
    add('MontoTotalPagos', p.monto, tc);
  }
  const ORDER = [
    'TotalRetencionesIVA',
    'TotalRetencionesISR',
    'TotalRetencionesIEPS',
    'TotalTrasladosBaseIVA16',
    'TotalTrasladosImpuestoIVA16',
    'TotalTrasladosBaseIVA8',
    'TotalTrasladosImpuestoIVA8',
    'TotalTrasladosBaseIVA0',
    'TotalTrasladosImpuestoIVA0',
    'TotalTrasladosBaseIVAExento',
    'MontoTotalPagos',
  ];
  return ORDER.filter((k) => acc.has(k)).map((k) => [k, acc.get(k)!.round(2)]);
}
