/**
 * What the engine takes: a CFDI request as the API receives it once its format is checked (amounts as decimal
 * strings, RFCs upper-cased), field names as the public request spells them. The request schemas are checked at
 * compile time to fit these types (src/invoices/cfdis/schemas.ts), so the engine depends on no transport.
 */
import type { ComplementInputs, ConceptoComplementInputs } from './complements/index.ts';

/** An amount or quantity as written: a non-negative decimal string (src/cfdi/decimal.ts parses it). */
export type DecimalText = string;

/** One tax line of a concepto or of a paid document (Traslado / Retencion). */
export interface TaxInput {
  impuesto: string;
  tipo_factor: 'Tasa' | 'Cuota' | 'Exento';
  tasa_o_cuota?: DecimalText;
  base?: DecimalText;
  importe?: DecimalText;
}

export interface ImpuestosInput {
  traslados?: TaxInput[];
  retenciones?: TaxInput[];
}

/** Receptor as sent, or as a stored client resolves to. */
export interface ReceptorInput {
  rfc: string;
  nombre: string;
  regimen_fiscal: string;
  domicilio_fiscal: string;
  uso_cfdi: string;
  residencia_fiscal?: string;
  num_reg_id_trib?: string;
}

interface ACuentaTercerosInput {
  rfc: string;
  nombre: string;
  regimen_fiscal: string;
  domicilio_fiscal: string;
}

/** A concepto as sent; its complements' members (conceptos[i].hidrocarburos_petroliferos, …) come from the registry. */
export type ConceptoInput = ConceptoBaseInput & ConceptoComplementInputs;

interface ConceptoBaseInput {
  clave_prod_serv: string;
  no_identificacion?: string;
  cantidad: DecimalText;
  clave_unidad: string;
  unidad?: string;
  descripcion: string;
  valor_unitario: DecimalText;
  descuento?: DecimalText;
  objeto_imp?: string;
  impuestos?: ImpuestosInput;
  a_cuenta_terceros?: ACuentaTercerosInput;
}

export type TipoDeComprobante = 'I' | 'E' | 'T' | 'N' | 'P';

/**
 * The Comprobante as requested. The receptor arrives resolved in the context (a stored client's or the one sent);
 * `receptor` and `receptor_id` here only say which field a receptor problem is reported under. Its complements'
 * members (`pagos`, `nomina`, `carta_porte`, …) are the registry's (src/cfdi/complements/index.ts).
 */
export type ComprobanteInput = ComprobanteBaseInput & ComplementInputs;

interface ComprobanteBaseInput {
  tipo: TipoDeComprobante;
  fecha?: string;
  forma_pago?: string;
  metodo_pago?: string;
  moneda?: string;
  tipo_cambio?: DecimalText;
  condiciones_de_pago?: string;
  exportacion?: string;
  receptor?: ReceptorInput;
  receptor_id?: string;
  informacion_global?: { periodicidad: string; meses: string; anio: string };
  cfdi_relacionados?: { tipo_relacion: string; uuids: string[] }[];
  conceptos?: ConceptoInput[];
}

/** One problem found in the input: the field as users write it, what is wrong, and SAT's rule code when one applies. */
export interface FieldProblem {
  field: string;
  issue: string;
  rule?: string;
}

/** How rule checks report a problem; every one is collected, so one answer lists them all. */
export type Fail = (field: string, issue: string, rule?: string) => void;

/** Field path as users write it: `tenant.rfc`, `conceptos[0].cantidad`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}
