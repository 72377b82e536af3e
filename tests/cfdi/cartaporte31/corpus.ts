/**
 * Valid Carta Porte 3.1 requests for the EKU9003173C9 test tenant (CP 42501): every transport mode, national and
 * international, hazardous and not, several destinations, Traslado and Ingreso. Built from the project's own
 * data (catalog keys of src/catalogs/data), not from anyone's sample documents.
 */
import { merged } from '../corpus.ts';

const EKU = 'EKU9003173C9';
const EKU_SELF = { rfc: EKU, nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'S01' };
const ICV = { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' };
const OPERADOR = { tipo_figura: '01', rfc_figura: 'FUNK671228PH6', num_licencia: 'LFD0012345', nombre_figura: 'KARLA FUENTE NOLASCO' };

const DOM = {
  pachuca: { calle: 'Av. Juárez', numero_exterior: '100', estado: 'HID', pais: 'MEX', codigo_postal: '42501' },
  queretaro: { calle: 'Av. Constituyentes', numero_exterior: '25', municipio: '014', localidad: '01', estado: 'QUE', pais: 'MEX', codigo_postal: '76000' },
  monterrey: { calle: 'Av. Constitución', numero_exterior: '400', municipio: '039', localidad: '07', estado: 'NLE', pais: 'MEX', codigo_postal: '64000' },
  guadalajara: { calle: 'Av. Vallarta', numero_exterior: '1200', municipio: '039', localidad: '03', estado: 'JAL', pais: 'MEX', codigo_postal: '44100' },
  cdmx: { calle: 'Av. Insurgentes Sur', numero_exterior: '300', municipio: '015', localidad: '06', estado: 'CMX', pais: 'MEX', codigo_postal: '06600' },
  nuevoLaredo: { calle: 'Av. Guerrero', numero_exterior: '15', municipio: '027', localidad: '06', estado: 'TAM', pais: 'MEX', codigo_postal: '88000' },
  laredoTx: { calle: 'San Bernardo Ave', numero_exterior: '5800', estado: 'TX', pais: 'USA', codigo_postal: '78041' },
  manzanillo: { calle: 'Av. Teniente Azueta', numero_exterior: '9', municipio: '007', localidad: '02', estado: 'COL', pais: 'MEX', codigo_postal: '28200' },
  lazaroCardenas: { calle: 'Av. Lázaro Cárdenas', numero_exterior: '1', municipio: '052', localidad: '21', estado: 'MIC', pais: 'MEX', codigo_postal: '60950' },
  aicm: { calle: 'Av. Capitán Carlos León', municipio: '017', localidad: '15', estado: 'CMX', pais: 'MEX', codigo_postal: '15620' },
  mtyAeropuerto: { calle: 'Carretera Miguel Alemán km 24', municipio: '006', localidad: '01', estado: 'NLE', pais: 'MEX', codigo_postal: '66600' },
};

const origen = (domicilio: Record<string, unknown>, fecha: string, over: Record<string, unknown> = {}) => ({
  tipo_ubicacion: 'Origen',
  rfc_remitente_destinatario: EKU,
  nombre_remitente_destinatario: 'ESCUELA KEMPER URGATE',
  fecha_hora_salida_llegada: fecha,
  domicilio,
  ...over,
});
const destino = (domicilio: Record<string, unknown> | undefined, fecha: string, over: Record<string, unknown> = {}) => ({
  tipo_ubicacion: 'Destino',
  rfc_remitente_destinatario: EKU,
  fecha_hora_salida_llegada: fecha,
  ...(domicilio && { domicilio }),
  ...over,
});

const PEGAMENTO = {
  bienes_transp: '31201610',
  descripcion: 'Pegamento blanco en cubetas de 19 l',
  cantidad: 40,
  clave_unidad: 'H87',
  material_peligroso: false,
  peso_en_kg: '800.000',
};
const ESTIBAS = {
  bienes_transp: '24112700',
  descripcion: 'Tarimas de madera',
  cantidad: 40,
  clave_unidad: 'H87',
  material_peligroso: false,
  peso_en_kg: '600',
  guias_identificacion: [
    { numero_guia_identificacion: 'GUIA-0000098765', descrip_guia_identificacion: 'Tarimas con cajas de refacciones', peso_guia_identificacion: '600' },
  ],
};
const COMPUTADORAS = { bienes_transp: '43211503', descripcion: 'Computadoras portátiles', cantidad: 25, clave_unidad: 'H87', peso_en_kg: '62.5' };
const DIESEL = {
  bienes_transp: '15101505',
  descripcion: 'Combustible diésel',
  cantidad: 20000,
  clave_unidad: 'LTR',
  material_peligroso: true,
  cve_material_peligroso: '1202',
  embalaje: '1A1',
  descrip_embalaje: 'Tambores de acero',
  peso_en_kg: '16800',
};
const GASOLINA = {
  ...DIESEL,
  bienes_transp: '15101514',
  descripcion: 'Gasolina regular',
  cantidad: 15000,
  cve_material_peligroso: '1203',
  peso_en_kg: '11250',
};

const AUTO = {
  perm_sct: 'TPAF02',
  num_permiso_sct: 'PRIV-HID-000123',
  identificacion_vehicular: { config_vehicular: 'C2', peso_bruto_vehicular: '12.50', placa_vm: '501AA2', anio_modelo_vm: 2022 },
  seguros: { asegura_resp_civil: 'SEGUROS DEL CENTRO', poliza_resp_civil: 'RC-2026-00123' },
};
const AUTO_TRAILER = {
  ...AUTO,
  perm_sct: 'TPAF01',
  num_permiso_sct: 'AF-0012345',
  identificacion_vehicular: { config_vehicular: 'T3S2', peso_bruto_vehicular: '46.50', placa_vm: '12AB3C', anio_modelo_vm: 2021 },
  remolques: [{ sub_tipo_rem: 'CTR004', placa: '89UK2F' }],
};
const AUTO_PELIGROSO = {
  ...AUTO_TRAILER,
  perm_sct: 'TPAF03',
  seguros: { ...AUTO.seguros, asegura_med_ambiente: 'ECOSEGUROS', poliza_med_ambiente: 'MA-88231' },
};

/** Pachuca → Querétaro by road, a Traslado of the issuer's own goods. */
const cartaPorteBase = {
  ubicaciones: [origen(DOM.pachuca, '2026-11-20T08:00:00'), destino(DOM.queretaro, '2026-11-20T12:30:00', { distancia_recorrida: '215.5' })],
  mercancias: [PEGAMENTO],
  autotransporte: AUTO,
  figura_transporte: [OPERADOR],
};
/** A Traslado of the issuer's own goods: one concepto per mercancía, by the same key (SAT's instructivo). */
const traslado = (cartaPorte: Record<string, unknown>) => ({
  tipo: 'T',
  receptor: EKU_SELF,
  conceptos: (cartaPorte.mercancias as Record<string, unknown>[]).map((m) => ({
    clave_prod_serv: m.bienes_transp,
    clave_unidad: m.clave_unidad,
    descripcion: m.descripcion,
    cantidad: m.cantidad,
    valor_unitario: 0,
    objeto_imp: '01',
  })),
  carta_porte: cartaPorte,
});
/** A carrier billing the freight: IVA 16 % and the 4 % IVA withheld on road freight. */
const flete = (importe: string) => ({
  clave_prod_serv: '78101800',
  clave_unidad: 'E48',
  descripcion: 'Flete',
  cantidad: 1,
  valor_unitario: importe,
  impuestos: {
    traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }],
    retenciones: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.040000' }],
  },
});
const ingreso = (cartaPorte: Record<string, unknown>, importe = '8500.00') => ({
  tipo: 'I',
  forma_pago: '03',
  metodo_pago: 'PUE',
  receptor: ICV,
  conceptos: [flete(importe)],
  carta_porte: cartaPorte,
});
const cp = (over: Record<string, unknown>) => merged(cartaPorteBase, over);

const export_ = {
  transp_internac: true,
  entrada_salida_merc: 'Salida',
  pais_origen_destino: 'USA',
  via_entrada_salida: '01',
  regimenes_aduaneros: ['EXD'],
  ubicaciones: [
    origen(DOM.monterrey, '2026-11-21T06:00:00'),
    destino(DOM.laredoTx, '2026-11-21T10:15:00', {
      rfc_remitente_destinatario: 'XEXX010101000',
      nombre_remitente_destinatario: 'BORDER LOGISTICS LLC',
      num_reg_id_trib: '121585958',
      residencia_fiscal: 'USA',
      distancia_recorrida: '232',
    }),
  ],
  mercancias: [{ ...ESTIBAS, fraccion_arancelaria: '4415100100', tipo_materia: '03' }],
  autotransporte: { ...AUTO_TRAILER, perm_sct: 'TPAF08' },
  figura_transporte: [OPERADOR],
};
const import_ = {
  transp_internac: true,
  entrada_salida_merc: 'Entrada',
  pais_origen_destino: 'USA',
  via_entrada_salida: '01',
  regimenes_aduaneros: ['IMD', 'ITE'],
  ubicaciones: [
    origen(DOM.laredoTx, '2026-11-22T05:00:00', {
      rfc_remitente_destinatario: 'XEXX010101000',
      nombre_remitente_destinatario: 'BORDER LOGISTICS LLC',
      num_reg_id_trib: '121585958',
      residencia_fiscal: 'USA',
    }),
    destino(DOM.nuevoLaredo, '2026-11-22T07:00:00', { distancia_recorrida: '12.4' }),
    destino(DOM.monterrey, '2026-11-22T10:30:00', { distancia_recorrida: '224.1' }),
  ],
  mercancias: [
    {
      ...COMPUTADORAS,
      bienes_transp: '43211503',
      fraccion_arancelaria: '8471300199',
      tipo_materia: '03',
      valor_mercancia: '312500.00',
      moneda: 'USD',
      documentacion_aduanera: [{ tipo_documento: '01', num_pedimento: '26  24  3420  6000123', rfc_impo: EKU }],
    },
  ],
  autotransporte: { ...AUTO_TRAILER, perm_sct: 'TPAF08' },
  figura_transporte: [OPERADOR],
};

const MARITIMO = {
  tipo_embarcacion: 'B04',
  matricula: '2806031711',
  numero_omi: 'IMO9300001',
  nombre_embarc: 'PACIFICO UNO',
  nacionalidad_embarc: 'MEX',
  unidades_de_arq_bruto: '25400.5',
  tipo_carga: 'CGC',
  nombre_agente_naviero: 'AGENCIA NAVIERA DEL PACIFICO',
  num_autorizacion_naviero: 'ANG031/2024',
  contenedores: [{ tipo_contenedor: 'CM006', matricula_contenedor: 'MSCU1234565', num_precinto: 'PR-55821' }],
};
const maritimo = {
  ubicaciones: [
    origen(DOM.manzanillo, '2026-11-20T18:00:00', { num_estacion: 'PM046', tipo_estacion: '01', navegacion_trafico: 'Cabotaje' }),
    destino(DOM.lazaroCardenas, '2026-11-21T14:00:00', {
      num_estacion: 'PM056',
      tipo_estacion: '03',
      navegacion_trafico: 'Cabotaje',
    }),
  ],
  mercancias: [{ ...PEGAMENTO, detalle_mercancia: { unidad_peso_merc: 'KGM', peso_bruto: '820', peso_neto: '800', num_piezas: 40 } }],
  transporte_maritimo: MARITIMO,
};

const AEREO = {
  perm_sct: 'TPTA01',
  num_permiso_sct: 'DGAC-CARGA-0098',
  matricula_aeronave: 'XA-MXA',
  numero_guia: '139-12345675',
  codigo_transportista: 'CA143',
  rfc_embarcador: EKU,
  nombre_embarcador: 'ESCUELA KEMPER URGATE',
};
const aereo = {
  ubicaciones: [
    origen(DOM.aicm, '2026-11-20T21:00:00', { num_estacion: 'EA0426', tipo_estacion: '01' }),
    destino(DOM.mtyAeropuerto, '2026-11-20T22:40:00', { num_estacion: 'EA0448', tipo_estacion: '03' }),
  ],
  mercancias: [{ ...COMPUTADORAS, valor_mercancia: '437500.00', moneda: 'MXN' }],
  transporte_aereo: AEREO,
};

const FERROVIARIO = {
  tipo_de_servicio: 'TS01',
  tipo_de_trafico: 'TT01',
  nombre_aseg: 'SEGUROS FERREOS',
  num_poliza_seguro: 'FE-3321',
  carros: [{ tipo_carro: 'TC01', matricula_carro: 'FXE123456', guia_carro: 'G-7781', toneladas_netas_carro: '60' }],
};
/** Querétaro → Monterrey by rail: SAT asks for the intermediate points (at least 5 Destino, CP129). */
const ferroviario = {
  ubicaciones: [
    origen(DOM.queretaro, '2026-11-20T06:00:00', { num_estacion: 'LJ246', tipo_estacion: '01' }),
    destino(undefined, '2026-11-20T09:00:00', { num_estacion: 'A0383', tipo_estacion: '02', distancia_recorrida: '180' }),
    destino(undefined, '2026-11-20T16:00:00', { num_estacion: 'Q0736', tipo_estacion: '02', distancia_recorrida: '210.5' }),
    destino(undefined, '2026-11-20T22:00:00', { num_estacion: 'Q0486', tipo_estacion: '02', distancia_recorrida: '150' }),
    destino(undefined, '2026-11-21T03:00:00', { num_estacion: 'DA234.9', tipo_estacion: '02', distancia_recorrida: '120' }),
    destino(DOM.monterrey, '2026-11-21T09:00:00', { num_estacion: 'M523.5', tipo_estacion: '03', distancia_recorrida: '90' }),
  ],
  mercancias: [{ ...PEGAMENTO, cantidad: 400, peso_en_kg: '8000' }],
  transporte_ferroviario: FERROVIARIO,
};

export const CARTAS_PORTE: [string, Record<string, unknown>][] = [
  ['Carta Porte T, autotransporte: own goods Pachuca → Querétaro', traslado(cartaPorteBase)],
  [
    'Carta Porte T, autotransporte: two destinations with CantidadTransporta per leg',
    traslado(
      cp({
        ubicaciones: [
          origen(DOM.pachuca, '2026-11-20T07:00:00'),
          destino(DOM.queretaro, '2026-11-20T11:00:00', { distancia_recorrida: '215.5' }),
          destino(DOM.guadalajara, '2026-11-20T18:00:00', { distancia_recorrida: '346.25' }),
        ],
        mercancias: [
          {
            ...PEGAMENTO,
            cantidad_transporta: [
              { cantidad: 15, id_origen: 'OR000001', id_destino: 'DE000001' },
              { cantidad: 25, id_origen: 'OR000001', id_destino: 'DE000002' },
            ],
          },
        ],
      }),
    ),
  ],
  [
    'Carta Porte T, autotransporte: five destinations, own IDUbicacion, distances adding up',
    traslado(
      cp({
        ubicaciones: [
          origen(DOM.cdmx, '2026-11-20T05:00:00', { id_ubicacion: 'OR100000' }),
          destino(DOM.pachuca, '2026-11-20T06:45:00', { id_ubicacion: 'DE100001', distancia_recorrida: '94.3' }),
          destino(DOM.queretaro, '2026-11-20T10:00:00', { id_ubicacion: 'DE100002', distancia_recorrida: '221.7' }),
          destino(DOM.guadalajara, '2026-11-20T15:30:00', { id_ubicacion: 'DE100003', distancia_recorrida: '346' }),
          destino(DOM.queretaro, '2026-11-21T09:00:00', { id_ubicacion: 'DE100004', distancia_recorrida: '346' }),
          destino(DOM.monterrey, '2026-11-21T17:00:00', { id_ubicacion: 'DE100005', distancia_recorrida: '580.25' }),
        ],
        total_dist_rec: '1588.25',
      }),
    ),
  ],
  [
    'Carta Porte T, autotransporte: hazardous diesel in a tractor-trailer, environmental insurance',
    traslado(cp({ mercancias: [DIESEL], autotransporte: AUTO_PELIGROSO, figura_transporte: [OPERADOR] })),
  ],
  [
    'Carta Porte T, autotransporte: hazardous and ordinary goods together, totals sent and checked',
    traslado(
      cp({
        mercancias: [GASOLINA, PEGAMENTO, COMPUTADORAS],
        autotransporte: AUTO_PELIGROSO,
        peso_bruto_total: '12112.5',
        num_total_mercancias: 3,
        unidad_peso: 'KGM',
      }),
    ),
  ],
  [
    'Carta Porte T, autotransporte: a leased truck (owner and lessor figures) and a logistics return',
    traslado(
      cp({
        logistica_inversa_recoleccion_devolucion: true,
        figura_transporte: [
          OPERADOR,
          { tipo_figura: '02', rfc_figura: 'ICV060329BY0', nombre_figura: 'INMOBILIARIA CVA', partes_transporte: ['PT01'], domicilio: DOM.guadalajara },
          { tipo_figura: '03', rfc_figura: 'URE180429TM6', nombre_figura: 'UNIVERSIDAD ROBOTICA ESPAÑOLA', partes_transporte: ['PT04', 'PT05'] },
        ],
      }),
    ),
  ],
  [
    'Carta Porte T, autotransporte: medicines (COFEPRIS sector 01), refrigerated',
    traslado(
      cp({
        mercancias: [
          {
            bienes_transp: '51101500',
            descripcion: 'Amoxicilina cápsulas 500 mg',
            cantidad: 1200,
            clave_unidad: 'XBX',
            peso_en_kg: '360',
            sector_cofepris: '01',
            denominacion_generica_prod: 'Amoxicilina',
            denominacion_distintiva_prod: 'Amoxil',
            fabricante: 'LABORATORIOS DEL NORTE SA DE CV',
            fecha_caducidad: '2028-06-30',
            lote_medicamento: 'L2611A',
            forma_farmaceutica: '02',
            condiciones_esp_transp: '02',
            registro_sanitario_folio_autorizacion: '123M2019SSA',
            valor_mercancia: '185000.00',
            moneda: 'MXN',
          },
        ],
      }),
    ),
  ],
  [
    'Carta Porte T, autotransporte: Istmo de Tehuantepec poles, dimensions and tracking guides',
    traslado(
      cp({
        registro_istmo: true,
        ubicacion_polo_origen: '01',
        ubicacion_polo_destino: '03',
        mercancias: [
          {
            ...COMPUTADORAS,
            dimensiones: '60/40/30cm',
            guias_identificacion: [
              { numero_guia_identificacion: 'GUIA-0000012345', descrip_guia_identificacion: 'Caja con 25 equipos', peso_guia_identificacion: '62.5' },
            ],
          },
        ],
      }),
    ),
  ],
  [
    'Carta Porte T, autotransporte: a foreign operator without an RFC',
    traslado(
      cp({
        figura_transporte: [
          { tipo_figura: '01', num_licencia: 'TX-D1234567', nombre_figura: 'JOHN SMITH', num_reg_id_trib_figura: '987654321', residencia_fiscal_figura: 'USA' },
        ],
      }),
    ),
  ],
  ['Carta Porte T, autotransporte: export to the United States (Salida, EXD)', traslado(export_)],
  ['Carta Porte T, autotransporte: import with a pedimento (Entrada, IMD and ITE), two destinations', traslado(import_)],
  ['Carta Porte I, autotransporte: a carrier bills the freight Pachuca → Querétaro', ingreso(cp({ autotransporte: AUTO_TRAILER }))],
  [
    'Carta Porte I, autotransporte: freight of hazardous goods with a cargo insurance premium',
    ingreso(
      cp({
        mercancias: [DIESEL],
        autotransporte: merged(AUTO_PELIGROSO, { seguros: { asegura_carga: 'SEGUROS DE CARGA', poliza_carga: 'CG-1100', prima_seguro: '1250.00' } }),
      }),
      '23500.00',
    ),
  ],
  ['Carta Porte I, autotransporte: international freight (import)', ingreso(import_, '41000.00')],
  [
    'Carta Porte I, autotransporte: three destinations, goods of several kinds',
    ingreso(
      cp({
        autotransporte: AUTO_TRAILER,
        ubicaciones: [
          origen(DOM.guadalajara, '2026-11-20T04:00:00'),
          destino(DOM.queretaro, '2026-11-20T09:30:00', { distancia_recorrida: '346' }),
          destino(DOM.cdmx, '2026-11-20T13:30:00', { distancia_recorrida: '221.7' }),
          destino(DOM.pachuca, '2026-11-20T15:30:00', { distancia_recorrida: '94.3' }),
        ],
        mercancias: [PEGAMENTO, COMPUTADORAS, { ...COMPUTADORAS, descripcion: 'Monitores', cantidad: 30, peso_en_kg: '180' }],
      }),
      '15600.00',
    ),
  ],
  ['Carta Porte T, marítimo: containerised cargo Manzanillo → Lázaro Cárdenas (cabotaje)', traslado(maritimo)],
  [
    'Carta Porte I, marítimo: bulk cargo with permit and insurance, two ports of call',
    ingreso(
      merged(maritimo, {
        ubicaciones: [
          origen(DOM.lazaroCardenas, '2026-11-20T10:00:00', { num_estacion: 'PM056', tipo_estacion: '01', navegacion_trafico: 'Cabotaje' }),
          destino(DOM.manzanillo, '2026-11-21T02:00:00', {
            num_estacion: 'PM046',
            nombre_estacion: 'Manzanillo',
            tipo_estacion: '02',
            navegacion_trafico: 'Cabotaje',
          }),
          destino(undefined, '2026-11-22T20:00:00', {
            num_estacion: 'PM078',
            tipo_estacion: '03',
            navegacion_trafico: 'Cabotaje',
            domicilio: { calle: 'Av. Emilio Barragán', estado: 'SIN', pais: 'MEX', codigo_postal: '80000', municipio: '006', localidad: '02' },
          }),
        ],
        transporte_maritimo: {
          ...MARITIMO,
          perm_sct: 'TPTM01',
          num_permiso_sct: 'PTN-2026-01',
          nombre_aseg: 'SEGUROS MARINOS',
          num_poliza_seguro: 'PM-77812',
          tipo_embarcacion: 'B03',
          tipo_carga: 'GAG',
          contenedores: undefined,
          eslora: '180.5',
          manga: '32.25',
        },
      }),
      '98000.00',
    ),
  ],
  [
    'Carta Porte T, marítimo: export by sea (Salida, EXD)',
    traslado(
      merged(maritimo, {
        transp_internac: true,
        entrada_salida_merc: 'Salida',
        pais_origen_destino: 'CHN',
        via_entrada_salida: '02',
        regimenes_aduaneros: ['EXD'],
        ubicaciones: [
          origen(DOM.manzanillo, '2026-11-20T18:00:00', { num_estacion: 'PM046', tipo_estacion: '01', navegacion_trafico: 'Altura' }),
          destino(DOM.lazaroCardenas, '2026-11-21T14:00:00', {
            num_estacion: 'PM056',
            tipo_estacion: '03',
            navegacion_trafico: 'Altura',
            rfc_remitente_destinatario: 'XEXX010101000',
            nombre_remitente_destinatario: 'SHANGHAI PALLETS CO LTD',
            num_reg_id_trib: '913100001234',
            residencia_fiscal: 'CHN',
          }),
        ],
        mercancias: [
          {
            ...ESTIBAS,
            fraccion_arancelaria: '4415100100',
            tipo_materia: '03',
            detalle_mercancia: { unidad_peso_merc: 'KGM', peso_bruto: '620', peso_neto: '600' },
          },
        ],
      }),
    ),
  ],
  ['Carta Porte T, aéreo: computers Mexico City → Monterrey', traslado(aereo)],
  [
    'Carta Porte I, aéreo: a foreign shipper and an appraisal charge',
    ingreso(
      merged(aereo, {
        cargo_por_tasacion: '350.00',
        transporte_aereo: {
          ...AEREO,
          rfc_embarcador: undefined,
          num_reg_id_trib_embarc: '121585958',
          residencia_fiscal_embarc: 'USA',
          nombre_embarcador: 'ACME EXPORTS INC',
        },
      }),
      '12000.00',
    ),
  ],
  ['Carta Porte T, ferroviario: Querétaro → Monterrey with an intermediate station', traslado(ferroviario)],
  [
    'Carta Porte I, ferroviario: intermodal containers and rights of way',
    ingreso(
      merged(ferroviario, {
        transporte_ferroviario: {
          ...FERROVIARIO,
          tipo_de_servicio: 'TS02',
          derechos_de_paso: [{ tipo_derecho_de_paso: 'CDP114', kilometraje_pagado: '42.5' }],
          carros: [
            {
              tipo_carro: 'TC05',
              matricula_carro: 'TTX654321',
              guia_carro: 'G-9901',
              toneladas_netas_carro: '28.5',
              contenedores: [
                { tipo_contenedor: 'TC02', peso_contenedor_vacio: '3750', peso_neto_mercancia: '24000' },
                { tipo_contenedor: 'TC01', peso_contenedor_vacio: '2200', peso_neto_mercancia: '4500' },
              ],
            },
            {
              tipo_carro: 'TC05',
              matricula_carro: 'TTX654322',
              guia_carro: 'G-9902',
              contenedores: [{ tipo_contenedor: 'TC02', peso_contenedor_vacio: '3750', peso_neto_mercancia: '21500' }],
            },
          ],
        },
      }),
      '64000.00',
    ),
  ],
  [
    'Carta Porte I, aéreo: import from Frankfurt (a foreign airport, its own name, no station type), medicines with their import data',
    ingreso(
      merged(aereo, {
        transp_internac: true,
        entrada_salida_merc: 'Entrada',
        pais_origen_destino: 'DEU',
        via_entrada_salida: '03',
        regimenes_aduaneros: ['IMD'],
        ubicaciones: [
          origen({ calle: 'Flughafen', estado: 'Hessen', pais: 'DEU', codigo_postal: '60547' }, '2026-11-19T22:00:00', {
            rfc_remitente_destinatario: 'XEXX010101000',
            nombre_remitente_destinatario: 'PHARMA EXPORT GMBH',
            num_reg_id_trib: 'DE123456789',
            residencia_fiscal: 'DEU',
            num_estacion: 'EA0004',
            nombre_estacion: 'Frankfurt am Main',
          }),
          destino(DOM.aicm, '2026-11-20T10:30:00', { num_estacion: 'EA0426', tipo_estacion: '03' }),
        ],
        mercancias: [
          {
            bienes_transp: '51101500',
            descripcion: 'Amoxicilina cápsulas 500 mg',
            cantidad: 2400,
            clave_unidad: 'XBX',
            peso_en_kg: '720',
            sector_cofepris: '01',
            denominacion_generica_prod: 'Amoxicilina',
            denominacion_distintiva_prod: 'Amoxil',
            fabricante: 'PHARMA EXPORT GMBH',
            fecha_caducidad: '2028-06-30',
            lote_medicamento: 'DE2611B',
            forma_farmaceutica: '02',
            condiciones_esp_transp: '03',
            registro_sanitario_folio_autorizacion: '456M2020SSA',
            permiso_importacion: 'PI2611',
            folio_impo_vucem: 'VUCEM-0012345',
            valor_mercancia: '38000.00',
            moneda: 'EUR',
            fraccion_arancelaria: '3004109900',
            tipo_materia: '03',
            documentacion_aduanera: [{ tipo_documento: '01', num_pedimento: '26  47  3420  6000777', rfc_impo: EKU }],
          },
        ],
        transporte_aereo: { ...AEREO, codigo_transportista: 'CA148', numero_guia: '020-55512345' },
      }),
      '18500.00',
    ),
  ],
  [
    'Carta Porte T, ferroviario: export to the United States through Nuevo Laredo',
    traslado(
      merged(ferroviario, {
        transp_internac: true,
        entrada_salida_merc: 'Salida',
        pais_origen_destino: 'USA',
        via_entrada_salida: '04',
        regimenes_aduaneros: ['EXD'],
        ubicaciones: [
          origen(DOM.queretaro, '2026-11-20T06:00:00', { num_estacion: 'LJ246', tipo_estacion: '01' }),
          destino(undefined, '2026-11-20T10:00:00', { num_estacion: 'A0292', tipo_estacion: '02', distancia_recorrida: '65' }),
          destino(undefined, '2026-11-20T18:00:00', { num_estacion: 'B0525', tipo_estacion: '02', distancia_recorrida: '240' }),
          destino(undefined, '2026-11-21T04:00:00', { num_estacion: 'B0915', tipo_estacion: '02', distancia_recorrida: '450' }),
          destino(undefined, '2026-11-21T08:00:00', { num_estacion: 'M523.5', tipo_estacion: '02', distancia_recorrida: '85' }),
          destino(DOM.nuevoLaredo, '2026-11-21T14:00:00', {
            num_estacion: 'B1290',
            tipo_estacion: '03',
            distancia_recorrida: '230',
            rfc_remitente_destinatario: 'XEXX010101000',
            nombre_remitente_destinatario: 'BORDER LOGISTICS LLC',
            num_reg_id_trib: '121585958',
            residencia_fiscal: 'USA',
          }),
        ],
        mercancias: [{ ...PEGAMENTO, cantidad: 400, peso_en_kg: '8000', fraccion_arancelaria: '3506109901', tipo_materia: '03' }],
      }),
    ),
  ],
];
