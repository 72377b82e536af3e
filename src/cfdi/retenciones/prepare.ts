import type { FieldProblem } from '../input.ts';
import { textProblems } from '../text.ts';
import { COMPLEMENTS, memberOf } from './complements/index.ts';
import type { RetencionInput } from './input.ts';
import type { RetencionFacts, RetencionModel } from './model.ts';
import { checkRawSchemas, parseRawComplements } from './raw-complements.ts';
import { checkClave, checkEmisor, checkFolioInt, prepareFechaExp, preparePeriodo, prepareReceptor, prepareRelacionado, prepareTotales } from './rules.ts';

/** What the caller supplies: the issuer (the tenant), the clock and the FolioInt its series gives. */
export interface RetencionContext {
  emisor: { rfc: string; nombre: string; regimenFiscal: string; codigoPostal: string };
  now: Date;
  folioInt?: string;
}

export interface PreparedRetencion {
  model?: RetencionModel;
  errors: FieldProblem[];
}

/**
 * Request → exact amounts → the rules of SAT's Retenciones 2.0 matrix (./rules.ts) and the complements' (registry
 * order), every problem collected so one answer lists them all. Async only for the schemas of the complements sent as
 * XML (xmllint in a thread); the rest is pure.
 */
export async function prepareRetencion(req: RetencionInput, ctx: RetencionContext): Promise<PreparedRetencion> {
  const errors: FieldProblem[] = [];
  const fail = (field: string, issue: string, rule?: string) => errors.push(rule ? { field, issue, rule } : { field, issue });
  const { complementos_xml, ...texts } = req;
  errors.push(...textProblems(texts));

  const lugar = ctx.emisor.codigoPostal;
  const fechaExp = prepareFechaExp(req.fecha_exp, ctx.now, lugar, fail);
  const day = /^\d{4}-\d{2}-\d{2}/.test(fechaExp) ? fechaExp.slice(0, 10) : ctx.now.toISOString().slice(0, 10);
  checkEmisor(ctx.emisor, day, fail);
  checkFolioInt(ctx.folioInt, fail);
  checkClave(req, fail);
  const relacionado = prepareRelacionado(req.cfdi_reten_relacionados, day, fail);
  const receptor = prepareReceptor(req.receptor, day, fail);
  const periodo = preparePeriodo(req.periodo, fechaExp, fail);
  const totales = prepareTotales(req, fail);

  const model: RetencionModel = {
    folioInt: ctx.folioInt,
    fechaExp,
    lugarExpRetenc: lugar,
    cveRetenc: req.cve_retenc,
    descRetenc: req.desc_retenc,
    relacionado,
    emisor: { rfc: ctx.emisor.rfc, nombre: ctx.emisor.nombre, regimenFiscal: ctx.emisor.regimenFiscal },
    receptor,
    periodo,
    totales,
    rawComplements: [],
  };
  for (const c of COMPLEMENTS) {
    const input = memberOf(req, c.input);
    if (input === undefined) continue;
    const facts: RetencionFacts = { cveRetenc: req.cve_retenc, fechaExp, periodo, receptor, totales, field: c.input };
    const prepared = c.prepare(input, facts, fail);
    if (prepared !== undefined) (model as Record<string, unknown>)[c.model] = prepared;
  }
  const raws = parseRawComplements(complementos_xml, fail);
  if (raws.length > 0) await checkRawSchemas(raws, fail);
  model.rawComplements = raws.map((r) => r.node);
  return errors.length > 0 ? { errors } : { model, errors };
}
