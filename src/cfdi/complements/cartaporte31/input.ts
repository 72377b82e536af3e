import type { DecimalText } from '../../input.ts';
import type { DomicilioInput } from '../domicilio.ts';

/** A domicilio of Carta Porte 3.1 (Ubicacion, TiposFigura): catalog keys where the país has them (MEX: c_Estado, c_CodigoPostal, …). */
export type DomicilioCartaPorteInput = DomicilioInput;

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
