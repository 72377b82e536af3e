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

/** A domicilio of Carta Porte 3.1 (Ubicacion, TiposFigura): catalog keys where the país has them (MEX: c_Estado, c_CodigoPostal, …). */
export interface DomicilioCartaPorteInput {
  calle?: string;
  numero_exterior?: string;
  numero_interior?: string;
  colonia?: string;
  localidad?: string;
  referencia?: string;
  municipio?: string;
  estado: string;
  pais: string;
  codigo_postal: string;
}

/** Carta Porte 3.1 Ubicacion: where the goods leave (Origen) or arrive (Destino). */
interface UbicacionInput {
  tipo_ubicacion: 'Origen' | 'Destino';
  id_ubicacion?: string;
  rfc_remitente_destinatario: string;
  nombre_remitente_destinatario?: string;
  num_reg_id_trib?: string;
  residencia_fiscal?: string;
  num_estacion?: string;
  nombre_estacion?: string;
  navegacion_trafico?: 'Altura' | 'Cabotaje';
  fecha_hora_salida_llegada: string;
  tipo_estacion?: string;
  distancia_recorrida?: DecimalText;
  domicilio?: DomicilioCartaPorteInput;
}

/** Carta Porte 3.1 Mercancia: one kind of goods moved, with its hazard, health (COFEPRIS) and customs data. */
export interface MercanciaInput {
  bienes_transp: string;
  clave_stcc?: string;
  descripcion: string;
  cantidad: DecimalText;
  clave_unidad: string;
  unidad?: string;
  dimensiones?: string;
  material_peligroso?: boolean;
  cve_material_peligroso?: string;
  embalaje?: string;
  descrip_embalaje?: string;
  sector_cofepris?: string;
  nombre_ingrediente_activo?: string;
  nom_quimico?: string;
  denominacion_generica_prod?: string;
  denominacion_distintiva_prod?: string;
  fabricante?: string;
  fecha_caducidad?: string;
  lote_medicamento?: string;
  forma_farmaceutica?: string;
  condiciones_esp_transp?: string;
  registro_sanitario_folio_autorizacion?: string;
  permiso_importacion?: string;
  folio_impo_vucem?: string;
  num_cas?: string;
  razon_social_emp_imp?: string;
  num_reg_san_plag_cofepris?: string;
  datos_fabricante?: string;
  datos_formulador?: string;
  datos_maquilador?: string;
  uso_autorizado?: string;
  peso_en_kg: DecimalText;
  valor_mercancia?: DecimalText;
  moneda?: string;
  fraccion_arancelaria?: string;
  uuid_comercio_ext?: string;
  tipo_materia?: string;
  descripcion_materia?: string;
  documentacion_aduanera?: { tipo_documento: string; num_pedimento?: string; ident_doc_aduanero?: string; rfc_impo?: string }[];
  guias_identificacion?: { numero_guia_identificacion: string; descrip_guia_identificacion: string; peso_guia_identificacion: DecimalText }[];
  cantidad_transporta?: { cantidad: DecimalText; id_origen: string; id_destino: string; cves_transporte?: string }[];
  detalle_mercancia?: { unidad_peso_merc: string; peso_bruto: DecimalText; peso_neto: DecimalText; peso_tara?: DecimalText; num_piezas?: number };
}

interface AutotransporteInput {
  perm_sct: string;
  num_permiso_sct: string;
  identificacion_vehicular: { config_vehicular: string; peso_bruto_vehicular: DecimalText; placa_vm: string; anio_modelo_vm: number };
  seguros: {
    asegura_resp_civil: string;
    poliza_resp_civil: string;
    asegura_med_ambiente?: string;
    poliza_med_ambiente?: string;
    asegura_carga?: string;
    poliza_carga?: string;
    prima_seguro?: DecimalText;
  };
  remolques?: { sub_tipo_rem: string; placa: string }[];
}

interface TransporteMaritimoInput {
  perm_sct?: string;
  num_permiso_sct?: string;
  nombre_aseg?: string;
  num_poliza_seguro?: string;
  tipo_embarcacion: string;
  matricula: string;
  numero_omi: string;
  anio_embarcacion?: number;
  nombre_embarc?: string;
  nacionalidad_embarc: string;
  unidades_de_arq_bruto: DecimalText;
  tipo_carga: string;
  eslora?: DecimalText;
  manga?: DecimalText;
  calado?: DecimalText;
  puntal?: DecimalText;
  linea_naviera?: string;
  nombre_agente_naviero: string;
  num_autorizacion_naviero: string;
  num_viaje?: string;
  num_conoc_embarc?: string;
  permiso_temp_navegacion?: string;
  contenedores?: {
    tipo_contenedor: string;
    matricula_contenedor?: string;
    num_precinto?: string;
    id_ccp_relacionado?: string;
    placa_vm_ccp?: string;
    fecha_certificacion_ccp?: string;
    remolques_ccp?: { sub_tipo_rem_ccp: string; placa_ccp: string }[];
  }[];
}

interface TransporteAereoInput {
  perm_sct: string;
  num_permiso_sct: string;
  matricula_aeronave?: string;
  nombre_aseg?: string;
  num_poliza_seguro?: string;
  numero_guia: string;
  lugar_contrato?: string;
  codigo_transportista: string;
  rfc_embarcador?: string;
  num_reg_id_trib_embarc?: string;
  residencia_fiscal_embarc?: string;
  nombre_embarcador?: string;
}

interface TransporteFerroviarioInput {
  tipo_de_servicio: string;
  tipo_de_trafico: string;
  nombre_aseg?: string;
  num_poliza_seguro?: string;
  derechos_de_paso?: { tipo_derecho_de_paso: string; kilometraje_pagado: DecimalText }[];
  carros: {
    tipo_carro: string;
    matricula_carro: string;
    guia_carro: string;
    toneladas_netas_carro?: DecimalText;
    contenedores?: { tipo_contenedor: string; peso_contenedor_vacio: DecimalText; peso_neto_mercancia: DecimalText }[];
  }[];
}

/** Carta Porte 3.1 TiposFigura: an operator, owner, lessee or notified party of the transport. */
export interface TipoFiguraInput {
  tipo_figura: string;
  rfc_figura?: string;
  num_licencia?: string;
  nombre_figura: string;
  num_reg_id_trib_figura?: string;
  residencia_fiscal_figura?: string;
  partes_transporte?: string[];
  domicilio?: DomicilioCartaPorteInput;
}

/**
 * Complemento Carta Porte 3.1 (tipo T or I). The Mercancias node's attributes and transport sections sit at this
 * level; what SAT computes (IdCCP, TotalDistRec, PesoBrutoTotal, PesoNetoTotal, NumTotalMercancias, IDUbicacion) is
 * filled in, and checked when sent.
 */
export interface CartaPorteInput {
  id_ccp?: string;
  transp_internac?: boolean;
  entrada_salida_merc?: 'Entrada' | 'Salida';
  pais_origen_destino?: string;
  via_entrada_salida?: string;
  total_dist_rec?: DecimalText;
  registro_istmo?: boolean;
  ubicacion_polo_origen?: string;
  ubicacion_polo_destino?: string;
  regimenes_aduaneros?: string[];
  ubicaciones: UbicacionInput[];
  unidad_peso?: string;
  peso_bruto_total?: DecimalText;
  peso_neto_total?: DecimalText;
  num_total_mercancias?: number;
  cargo_por_tasacion?: DecimalText;
  logistica_inversa_recoleccion_devolucion?: boolean;
  mercancias: MercanciaInput[];
  autotransporte?: AutotransporteInput;
  transporte_maritimo?: TransporteMaritimoInput;
  transporte_aereo?: TransporteAereoInput;
  transporte_ferroviario?: TransporteFerroviarioInput;
  figura_transporte?: TipoFiguraInput[];
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
  carta_porte?: CartaPorteInput;
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
