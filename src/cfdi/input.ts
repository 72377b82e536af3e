/**
 * What the engine takes: a CFDI request as the API receives it once its format is checked (amounts as decimal
 * strings, RFCs upper-cased), field names as the public request spells them. The request schemas are checked at
 * compile time to fit these types (src/invoices/cfdis/schemas.ts), so the engine depends on no transport.
 */

/** An amount or quantity as written: a non-negative decimal string (src/cfdi/decimal.ts parses it). */
type DecimalText = string;

/** One tax line of a concepto or of a paid document (Traslado / Retencion). */
export interface TaxInput {
  impuesto: string;
  tipo_factor: 'Tasa' | 'Cuota' | 'Exento';
  tasa_o_cuota?: DecimalText;
  base?: DecimalText;
  importe?: DecimalText;
}

interface ImpuestosInput {
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

export interface ConceptoInput {
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

/** Pagos 2.0 DoctoRelacionado: a document paid, issued here (found by the caller) or elsewhere (described here). */
export interface DoctoRelacionadoInput {
  num_parcialidad?: number;
  imp_pagado: DecimalText;
  equivalencia?: DecimalText;
  serie?: string;
  folio?: string;
  moneda?: string;
  imp_saldo_ant?: DecimalText;
  objeto_imp?: string;
  impuestos?: ImpuestosInput;
}

/** Pagos 2.0 Pago: one payment received. */
export interface PagoInput {
  fecha_pago: string;
  forma_pago: string;
  moneda: string;
  tipo_cambio?: DecimalText;
  monto: DecimalText;
  num_operacion?: string;
  rfc_emisor_cta_ord?: string;
  nom_banco_ord_ext?: string;
  cta_ordenante?: string;
  rfc_emisor_cta_ben?: string;
  cta_beneficiario?: string;
  documentos: DoctoRelacionadoInput[];
}

/** Nómina 1.2 Percepcion. */
interface PercepcionInput {
  tipo_percepcion: string;
  clave: string;
  concepto: string;
  importe_gravado: DecimalText;
  importe_exento: DecimalText;
  horas_extra?: { dias: number; tipo_horas: string; horas_extra: number; importe_pagado: DecimalText }[];
  acciones_o_titulos?: { valor_mercado: DecimalText; precio_al_otorgarse: DecimalText };
}

/** Complemento de Nómina 1.2: the payroll receipt; totals and Antigüedad are computed, never taken. */
export interface NominaInput {
  tipo_nomina: 'O' | 'E';
  fecha_pago: string;
  fecha_inicial_pago: string;
  fecha_final_pago: string;
  num_dias_pagados: DecimalText;
  emisor?: {
    registro_patronal?: string;
    curp?: string;
    rfc_patron_origen?: string;
    entidad_sncf?: { origen_recurso: string; monto_recurso_propio?: DecimalText };
  };
  receptor: {
    curp: string;
    nss?: string;
    fecha_inicio_rel_laboral?: string;
    tipo_contrato: string;
    sindicalizado?: boolean;
    tipo_jornada?: string;
    tipo_regimen: string;
    num_empleado: string;
    departamento?: string;
    puesto?: string;
    riesgo_puesto?: string;
    periodicidad_pago: string;
    banco?: string;
    cuenta_bancaria?: string;
    salario_base_cot_apor?: DecimalText;
    salario_diario_integrado?: DecimalText;
    clave_ent_fed: string;
    subcontratacion?: { rfc_labora: string; porcentaje_tiempo: DecimalText }[];
  };
  percepciones?: PercepcionInput[];
  jubilacion_pension_retiro?: {
    total_una_exhibicion?: DecimalText;
    total_parcialidad?: DecimalText;
    monto_diario?: DecimalText;
    ingreso_acumulable: DecimalText;
    ingreso_no_acumulable: DecimalText;
  };
  separacion_indemnizacion?: {
    total_pagado: DecimalText;
    num_anios_servicio: number;
    ultimo_sueldo_mens_ord: DecimalText;
    ingreso_acumulable: DecimalText;
    ingreso_no_acumulable: DecimalText;
  };
  deducciones?: { tipo_deduccion: string; clave: string; concepto: string; importe: DecimalText }[];
  otros_pagos?: {
    tipo_otro_pago: string;
    clave: string;
    concepto: string;
    importe: DecimalText;
    subsidio_causado?: DecimalText;
    compensacion_saldos_a_favor?: { saldo_a_favor: DecimalText; anio: number; remanente_sal_fav: DecimalText };
  }[];
  incapacidades?: { dias_incapacidad: number; tipo_incapacidad: string; importe_monetario?: DecimalText }[];
}

export type TipoDeComprobante = 'I' | 'E' | 'T' | 'N' | 'P';

/**
 * The Comprobante as requested. The receptor arrives resolved in the context (a stored client's or the one sent);
 * `receptor` and `receptor_id` here only say which field a receptor problem is reported under.
 */
export interface ComprobanteInput {
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
  pagos?: PagoInput[];
  nomina?: NominaInput;
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
