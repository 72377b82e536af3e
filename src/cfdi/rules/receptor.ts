import { catalogEntry, inForce, personaOf, type CatalogName, type CatalogRow } from '../../catalogs/index.ts';
import type { ComprobanteInput, FieldProblem, ReceptorInput } from '../input.ts';
import type { ReceptorModel } from '../model.ts';
import { textProblems } from '../text.ts';
import { T_RFC } from '../patterns.ts';
import { GENERIC_RFCS, rfcCheckDigitWarning, rfcProblem } from './rfc.ts';

export interface ReceptorContext {
  /** Fecha of the CFDI (YYYY-MM-DD…): catalog keys must be in force on that day. */
  fecha: string;
  tipo?: 'I' | 'E' | 'P' | 'N' | 'T';
  /** The issuer's postal code; CFDI40149 is checked only when it is known. */
  lugarExpedicion?: string;
}

const RFC_PUBLICO_GENERAL = 'XAXX010101000';
const RFC_EXTRANJERO = 'XEXX010101000';
const NOMBRE_PUBLICO_GENERAL = 'PUBLICO EN GENERAL';

const regexCache = new Map<string, RegExp | null>();
/** c_Pais "Formato de Registro de Identidad Tributaria" as an anchored regex; null when SAT's text does not compile. */
function taxIdPattern(source: string): RegExp | null {
  let re = regexCache.get(source);
  if (re === undefined) {
    try {
      re = new RegExp(`^(?:${source})$`);
    } catch {
      re = null;
    }
    regexCache.set(source, re);
  }
  return re;
}

/**
 * Every problem of a CFDI 4.0 receptor that can be checked without SAT's private lists (l_RFC), each with the
 * matrix rule code when one applies (docs/sat-rules.md §3). Fields are JSON paths under `prefix` (bare
 * names when it is empty). Checks that depend on a malformed value (e.g. the persona type of an invalid RFC) are
 * skipped, not reported twice.
 */
export function checkReceptor(r: ReceptorInput, ctx: ReceptorContext, prefix = 'receptor'): FieldProblem[] {
  const out: FieldProblem[] = [];
  const fail = (name: keyof ReceptorInput, issue: string, rule?: string) => {
    const field = prefix ? `${prefix}.${name}` : name;
    out.push(rule ? { field, issue, rule } : { field, issue });
  };
  const day = ctx.fecha.slice(0, 10);
  const entry = (name: CatalogName, key: string): CatalogRow | undefined => {
    const row = catalogEntry(name, key);
    return row && inForce(row, day) ? row : undefined;
  };

  // RFC (t_RFC, a real date: one that is not cannot be in SAT's list, CFDI40143). Persona type (12 moral, 13 física)
  // is only meaningful for a well-formed RFC. The check digit is a warning (rfcCheckDigitWarning), not a refusal.
  const rfcIssue = rfcProblem(r.rfc);
  const rfcOk = !rfcIssue;
  if (rfcIssue) fail('rfc', rfcIssue, T_RFC.test(r.rfc) ? 'CFDI40143' : undefined);
  const publico = r.rfc === RFC_PUBLICO_GENERAL;
  const extranjero = r.rfc === RFC_EXTRANJERO;
  const generic = publico || extranjero;
  /** A Mexican RFC (registered or the national generic one): neither ResidenciaFiscal nor NumRegIdTrib. */
  const national = rfcOk && !extranjero;
  const persona = rfcOk ? personaOf(r.rfc) : undefined;

  // Characters (the same check as every field of a request): a client stored earlier may hold what is refused now.
  out.push(...textProblems(r, prefix));

  // Nombre.
  if (r.nombre.length < 1 || r.nombre.length > 300) fail('nombre', 'must be 1 to 300 characters');
  else if (r.nombre.trim() === '') fail('nombre', 'must not be blank');
  if (r.nombre === NOMBRE_PUBLICO_GENERAL && !publico) {
    fail('rfc', `must be ${RFC_PUBLICO_GENERAL} when nombre is "${NOMBRE_PUBLICO_GENERAL}"`, 'CFDI40146');
  }

  // DomicilioFiscalReceptor.
  if (!/^[0-9]{5}$/.test(r.domicilio_fiscal)) fail('domicilio_fiscal', 'must be a 5-digit postal code');
  // Not a postal code at all: it cannot be this RFC's fiscal address in SAT's list, which is what a PAC checks (CFDI40147).
  else if (!entry('c_CodigoPostal', r.domicilio_fiscal))
    fail('domicilio_fiscal', `${r.domicilio_fiscal} is not in the SAT catalog c_CodigoPostal`, 'CFDI40147');
  else if (generic && ctx.lugarExpedicion !== undefined && r.domicilio_fiscal !== ctx.lugarExpedicion) {
    fail('domicilio_fiscal', `must equal the issuer's LugarExpedicion (${ctx.lugarExpedicion}) for the generic RFC ${r.rfc}`, 'CFDI40149');
  }

  // ResidenciaFiscal.
  const residencia = r.residencia_fiscal;
  let pais: CatalogRow | undefined;
  if (residencia !== undefined) {
    if (national) {
      fail(
        'residencia_fiscal',
        `must not be sent for a Mexican RFC (${publico ? 'the national generic RFC' : 'a registered taxpayer'}); only for ${RFC_EXTRANJERO}`,
        'CFDI40151',
      );
    }
    pais = catalogEntry('c_Pais', residencia);
    if (!pais) fail('residencia_fiscal', `${residencia} is not a key of the SAT catalog c_Pais (ISO 3166-1 alpha-3, e.g. USA)`, 'CFDI40150');
    else if (residencia === 'MEX') fail('residencia_fiscal', 'must not be MEX: it is the tax residence of a foreign receptor', 'CFDI40152');
  }

  // NumRegIdTrib.
  const taxId = r.num_reg_id_trib;
  if (taxId !== undefined) {
    if (taxId.length < 1 || taxId.length > 40) fail('num_reg_id_trib', 'must be 1 to 40 characters');
    if (national) fail('num_reg_id_trib', `must not be sent for a Mexican RFC; only for ${RFC_EXTRANJERO}`, 'CFDI40154');
    if (residencia === undefined) {
      if (!national) fail('residencia_fiscal', 'is required when num_reg_id_trib is sent', 'CFDI40153');
    } else if (pais && residencia !== 'MEX' && pais.formato_registro_identidad_tributaria) {
      const re = taxIdPattern(pais.formato_registro_identidad_tributaria);
      if (re && !re.test(taxId)) {
        fail('num_reg_id_trib', `does not match the format SAT publishes for ${residencia} (${pais.formato_registro_identidad_tributaria})`, 'CFDI40156');
      }
    }
  }

  // RegimenFiscalReceptor.
  const regimen = entry('c_RegimenFiscal', r.regimen_fiscal);
  let regimenOk = false;
  if (!regimen) {
    fail('regimen_fiscal', `${r.regimen_fiscal} is not a key of the SAT catalog c_RegimenFiscal in force on ${day}`, 'CFDI40157');
  } else if (generic && r.regimen_fiscal !== '616') {
    fail('regimen_fiscal', `must be 616 (Sin obligaciones fiscales) for the generic RFC ${r.rfc}`, 'CFDI40159');
  } else if (persona === 'moral' && regimen.aplica_moral !== '1') {
    fail('regimen_fiscal', `${r.regimen_fiscal} (${regimen.descripcion}) does not apply to a persona moral (12-character RFC)`, 'CFDI40158');
  } else if (persona === 'fisica' && regimen.aplica_fisica !== '1') {
    fail('regimen_fiscal', `${r.regimen_fiscal} (${regimen.descripcion}) does not apply to a persona física (13-character RFC)`, 'CFDI40158');
  } else {
    regimenOk = true;
  }

  // UsoCFDI: persona type and RegimenFiscalReceptor (c_UsoCFDI columns aplica_fisica/aplica_moral/regimenes_receptor).
  const uso = entry('c_UsoCFDI', r.uso_cfdi);
  if (!uso) {
    fail('uso_cfdi', `${r.uso_cfdi} is not a key of the SAT catalog c_UsoCFDI in force on ${day}`, 'CFDI40160');
  } else {
    if (persona === 'moral' && uso.aplica_moral !== '1') {
      fail('uso_cfdi', `${r.uso_cfdi} (${uso.descripcion}) does not apply to a persona moral (12-character RFC)`, 'CFDI40161');
    } else if (persona === 'fisica' && uso.aplica_fisica !== '1') {
      fail('uso_cfdi', `${r.uso_cfdi} (${uso.descripcion}) does not apply to a persona física (13-character RFC)`, 'CFDI40161');
    } else if (regimenOk && !(uso.regimenes_receptor ?? '').split(';').includes(r.regimen_fiscal)) {
      fail(
        'uso_cfdi',
        `${r.uso_cfdi} (${uso.descripcion}) is not allowed for régimen fiscal ${r.regimen_fiscal}; allowed: ${(uso.regimenes_receptor ?? '').split(';').sort().join(', ')}`,
        'CFDI40161',
      );
    }
  }

  // What the comprobante type fixes (Pagos 2.0 and Nómina 1.2 guides).
  if (ctx.tipo === 'P' && r.uso_cfdi !== 'CP01') fail('uso_cfdi', 'must be CP01 (Pagos) on a CFDI of tipo P');
  if (ctx.tipo === 'N') {
    if (r.uso_cfdi !== 'CN01') fail('uso_cfdi', 'must be CN01 (Nómina) on a CFDI of tipo N', 'NOM12');
    if (r.regimen_fiscal !== '605') fail('regimen_fiscal', 'must be 605 (Sueldos y Salarios) on a CFDI of tipo N', 'NOM11');
  }
  return out;
}

/**
 * The Comprobante's receptor step: the receptor the caller resolved (sent, or a stored client's), checked as above
 * and reported under the field the request used (`receptor` or `receptor_id`), with its warnings.
 */
export function prepareReceptor(
  req: ComprobanteInput,
  ctx: { receptor: ReceptorInput; emisorRfc: string; fecha: string; lugarExpedicion: string },
  errors: FieldProblem[],
  warnings: string[],
): { receptor: ReceptorModel; field: string } {
  const receptorInput = ctx.receptor;
  const field = req.receptor_id && !req.receptor ? 'receptor_id' : 'receptor';
  errors.push(...checkReceptor(receptorInput, { fecha: ctx.fecha, tipo: req.tipo, lugarExpedicion: ctx.lugarExpedicion }, field));
  const checkDigit = rfcCheckDigitWarning(receptorInput.rfc, `${field}.rfc`);
  if (checkDigit) warnings.push(checkDigit);
  if (receptorInput.rfc === ctx.emisorRfc && !GENERIC_RFCS.has(receptorInput.rfc) && req.tipo !== 'T') warnings.push('receptor.rfc equals the issuer RFC');
  const receptor: ReceptorModel = {
    rfc: receptorInput.rfc,
    nombre: receptorInput.nombre,
    domicilioFiscal: receptorInput.domicilio_fiscal,
    residenciaFiscal: receptorInput.residencia_fiscal,
    numRegIdTrib: receptorInput.num_reg_id_trib,
    regimenFiscal: receptorInput.regimen_fiscal,
    usoCfdi: receptorInput.uso_cfdi,
  };
  if (/\b(S\.?\s?A\.?\s?(DE\s)?C\.?\s?V\.?|S\.?\s?DE\s?R\.?\s?L\.?)\s*$/i.test(receptor.nombre)) {
    warnings.push('receptor.nombre seems to include the corporate suffix (SA DE CV …); SAT expects the name exactly as in the Constancia, without it');
  }
  return { receptor, field };
}
