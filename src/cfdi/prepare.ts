import { prepareCartaPorte } from './cartaporte31/rules.ts';
import { Dec } from './decimal.ts';
import type { ComprobanteInput, FieldProblem, ReceptorInput } from './input.ts';
import type { ComprobanteModel } from './model.ts';
import { nominaComprobanteAmounts, prepareNomina } from './nomina12/rules.ts';
import type { PaidDocument } from './pagos20/model.ts';
import { preparePagos } from './pagos20/rules.ts';
import { checkEmisor, prepareExportacion, prepareFecha, prepareInformacionGlobal, prepareMoneda, preparePaymentTerms } from './rules/comprobante.ts';
import { fixedConcepto, prepareConcepto } from './rules/conceptos.ts';
import { prepareReceptor } from './rules/receptor.ts';
import { prepareRelacionados } from './rules/relations.ts';
import { prepareTotals } from './rules/totals.ts';

/**
 * Request → exact amounts → SAT rule checks. Pure: the caller supplies the issuer, the clock and the receptor
 * (resolved from receptor_id). Every problem is collected, so one response lists them all.
 */
export interface PrepareContext {
  emisor: { rfc: string; nombre: string; regimenFiscal: string; codigoPostal: string };
  receptor: ReceptorInput;
  now: Date;
  serie?: string;
  folio?: string;
  /** Pago: each pagos[i].documentos[j] as the service resolved it (undefined where it reported a problem). */
  paidDocuments?: (PaidDocument | undefined)[][];
  /** Carta Porte: a new IdCCP for a request that sends none ("CCC" + the rest of a random UUID; the caller's randomness). */
  newIdCcp?: () => string;
}

export interface Prepared {
  model?: ComprobanteModel;
  errors: FieldProblem[];
  warnings: string[];
}

/** Each step (src/cfdi/rules/, the complements' rules) checks its part with its SAT rule codes, in document order. */
export function prepareInvoice(req: ComprobanteInput, ctx: PrepareContext): Prepared {
  const errors: FieldProblem[] = [];
  const warnings: string[] = [];
  const fail = (field: string, issue: string, rule?: string) => errors.push(rule ? { field, issue, rule } : { field, issue });
  const tipo = req.tipo;
  const lugar = ctx.emisor.codigoPostal;

  const fecha = prepareFecha(req, ctx.now, lugar, fail);
  const day = fecha.slice(0, 10);
  const { moneda, tipoCambio, decimals } = prepareMoneda(req, day, fail);
  const { formaPago, metodoPago } = preparePaymentTerms(req, day, fail, warnings);
  const exportacion = prepareExportacion(req, day, fail);
  checkEmisor(ctx.emisor, day, fail);
  // Receptor (CFDI40143–40161, shared with /clients).
  const { receptor, field: receptorField } = prepareReceptor(
    req,
    { receptor: ctx.receptor, emisorRfc: ctx.emisor.rfc, fecha, lugarExpedicion: lugar },
    errors,
    warnings,
  );
  const informacionGlobal = prepareInformacionGlobal(req, { day, regimenFiscal: ctx.emisor.regimenFiscal, receptor }, fail);
  const relacionados = prepareRelacionados(req, day, fail);

  const header = {
    serie: ctx.serie,
    folio: ctx.folio,
    fecha,
    formaPago,
    condicionesDePago: tipo === 'I' || tipo === 'E' ? req.condiciones_de_pago : undefined,
    moneda,
    tipoCambio,
    tipo,
    exportacion,
    metodoPago,
    lugarExpedicion: lugar,
    informacionGlobal,
    relacionados,
    emisor: { rfc: ctx.emisor.rfc, nombre: ctx.emisor.nombre, regimenFiscal: ctx.emisor.regimenFiscal },
    receptor,
  };
  const done = (model: ComprobanteModel | undefined): Prepared => (errors.length > 0 || !model ? { errors, warnings } : { errors, warnings, model });

  if (tipo === 'P') {
    // Pago: one fixed concepto, amounts 0, the payments in the complement (docs/sat-rules.md §8, CRP20101–20123).
    const pagos = preparePagos(req.pagos ?? [], ctx.paidDocuments ?? [], { day, fecha }, fail);
    return done({ ...header, subTotal: Dec.ZERO, total: Dec.ZERO, conceptos: [fixedConcepto('84111506', 'Pago', Dec.ZERO)], pagos });
  }
  if (tipo === 'N') {
    // Nómina: one fixed concepto worth percepciones + otros pagos, deducciones as its Descuento (docs/sat-rules.md §9).
    if (receptor.rfc.length !== 13) fail(`${receptorField}.rfc`, 'a Nómina is issued to a worker: a persona física with a 13-character RFC', 'NOM8');
    const nomina = prepareNomina(req.nomina!, { emisorRfc: ctx.emisor.rfc, receptorRfc: receptor.rfc, fecha }, fail);
    if (!nomina) return done(undefined);
    const { subTotal, descuento, total } = nominaComprobanteAmounts(nomina);
    const concepto = { ...fixedConcepto('84111505', 'Pago de nómina', subTotal), descuento };
    return done({ ...header, subTotal, descuento, total, conceptos: [concepto], nomina });
  }

  // Conceptos (I, E, T).
  const warn = (w: string | undefined) => w && warnings.push(w);
  const conceptos = req.conceptos!.map((c, i) =>
    prepareConcepto(c, `conceptos[${i}]`, { tipo, day, decimals, emisorRfc: ctx.emisor.rfc, receptorRfc: receptor.rfc, lugar, warn }, fail),
  );
  // Carta Porte 3.1 rides on a Traslado (own goods) or an Ingreso (a carrier's freight); only looked at when sent.
  let cartaPorte: ComprobanteModel['cartaPorte'];
  if (req.carta_porte) {
    if (tipo === 'E') fail('carta_porte', 'is only for tipo T (own goods moved) or I (a carrier billing the freight)', 'CP114');
    else {
      const newIdCcp = ctx.newIdCcp;
      if (!newIdCcp && !req.carta_porte.id_ccp) fail('carta_porte.id_ccp', 'is required: no IdCCP source was given');
      const comprobante = {
        tipo,
        moneda,
        receptorRfc: receptor.rfc,
        usoCfdi: receptor.usoCfdi,
        receptorField,
        conceptos: conceptos.map((c) => c.claveProdServ),
      };
      cartaPorte = prepareCartaPorte(req.carta_porte, { comprobante, fecha, emisorRfc: ctx.emisor.rfc, newIdCcp: newIdCcp ?? (() => '') }, fail);
    }
  }
  if (tipo === 'T') {
    // Traslado: the goods moved, at their value or 0, with SubTotal and Total 0 (CFDI40109) and no taxes (CFDI40201).
    return done({ ...header, subTotal: Dec.ZERO, total: Dec.ZERO, conceptos, cartaPorte });
  }
  if (errors.length > 0) return { errors, warnings };

  const totals = prepareTotals(conceptos, decimals, fail);
  if (!totals) return { errors, warnings };
  return done({ ...header, ...totals, conceptos, cartaPorte });
}
