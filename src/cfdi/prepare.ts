import type { ComprobanteFacts, ComprobanteTotals } from './complements/complement.ts';
import { COMPLEMENTS, type ComplementContexts, CONCEPTO_COMPLEMENTS, KIND_OF, memberOf } from './complements/index.ts';
import { Dec } from './decimal.ts';
import type { ComprobanteInput, FieldProblem, ReceptorInput } from './input.ts';
import type { ComprobanteModel } from './model.ts';
import { checkEmisor, prepareExportacion, prepareFecha, prepareInformacionGlobal, prepareMoneda, preparePaymentTerms } from './rules/comprobante.ts';
import { prepareConcepto } from './rules/conceptos.ts';
import { prepareReceptor } from './rules/receptor.ts';
import { prepareRelacionados } from './rules/relations.ts';
import { prepareTotals } from './rules/totals.ts';

/**
 * Request → exact amounts → SAT rule checks. Pure: the caller supplies the issuer, the clock and the receptor
 * (resolved from receptor_id). Every problem is collected, so one response lists them all.
 */
export type PrepareContext = {
  emisor: { rfc: string; nombre: string; regimenFiscal: string; codigoPostal: string };
  receptor: ReceptorInput;
  now: Date;
  serie?: string;
  folio?: string;
} & ComplementContexts; // what each complement needs of the caller (Pagos: paidDocuments, Carta Porte: newIdCcp)

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
  const facts = (conceptos: ComprobanteFacts['conceptos'], field: string): ComprobanteFacts => ({
    tipo,
    fecha,
    day,
    moneda,
    tipoCambio,
    decimals,
    exportacion,
    emisor: ctx.emisor,
    receptor,
    relacionados,
    receptorField,
    conceptos,
    field,
  });

  const kind = KIND_OF[tipo];
  if (kind) {
    // Pago, Nómina: the complement sets the concepto and the amounts (docs/sat-rules.md §8, §9).
    const complement = kind.prepare(memberOf(req, kind.input), facts([], kind.input), ctx, fail);
    if (!complement) return done(undefined);
    return done({ ...header, ...kind.kind!.amounts(complement), [kind.model]: complement } as ComprobanteModel);
  }

  // Conceptos (I, E, T: P and N are kinds, prepared above), each with its concepto complements.
  const conceptoTipo = tipo as 'I' | 'E' | 'T';
  const warn = (w: string | undefined) => w && warnings.push(w);
  const conceptos = req.conceptos!.map((c, i) => {
    const concepto = prepareConcepto(
      c,
      `conceptos[${i}]`,
      { tipo: conceptoTipo, day, decimals, emisorRfc: ctx.emisor.rfc, receptorRfc: receptor.rfc, lugar, warn },
      fail,
    );
    for (const complement of CONCEPTO_COMPLEMENTS) {
      const input = memberOf(c, complement.input);
      const field = `conceptos[${i}].${complement.input}`;
      if (input === undefined) {
        complement.absent?.(facts([concepto], field), fail);
        continue;
      }
      Object.assign(concepto, { [complement.model]: complement.prepare(input, facts([concepto], field), ctx, fail) });
    }
    return concepto;
  });
  // The complements that ride on the conceptos (Carta Porte 3.1 on a T or I); only looked at when sent.
  const riding: Record<string, unknown> = {};
  for (const complement of COMPLEMENTS) {
    const input = memberOf(req, complement.input);
    if (complement.kind) continue;
    if (!input) {
      complement.absent?.(facts(conceptos, complement.input), fail);
      continue;
    }
    const model = complement.prepare(input, facts(conceptos, complement.input), ctx, fail);
    if (model) riding[complement.model] = model;
  }
  if (conceptoTipo === 'T') {
    // Traslado: the goods moved, at their value or 0, with SubTotal and Total 0 (CFDI40109) and no taxes (CFDI40201).
    return done({ ...header, subTotal: Dec.ZERO, total: Dec.ZERO, conceptos, ...riding } as ComprobanteModel);
  }
  if (errors.length > 0) return { errors, warnings };

  let totals: ComprobanteTotals | undefined = prepareTotals(conceptos, decimals, fail);
  // Then what the complements add to them (Impuestos Locales: its taxes are part of Total).
  for (const complement of COMPLEMENTS) {
    const model = riding[complement.model];
    if (totals && model && complement.adjustTotals) totals = complement.adjustTotals(model, totals, fail);
  }
  if (!totals) return { errors, warnings };
  return done({ ...header, ...totals, conceptos, ...riding } as ComprobanteModel);
}
