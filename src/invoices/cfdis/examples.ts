import type { z } from '@hono/zod-openapi';
import type { BodyExamples } from '../../lib/schemas.ts';
import type { CfdiRequestSchema } from './schemas.ts';

/**
 * One complete request per voucher type, with SAT's test taxpayers (issuer EKU9003173C9, the sandbox tenant):
 * Swagger UI pre-fills the first; each is accepted as sent, except the Egreso, which names an Ingreso of yours.
 */
const ICV = { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826' };
const IVA_16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.160000' }] };

/** The Ingreso the Egreso example relates to: replace it with the UUID of one you issued to the same receptor. */
export const EGRESO_RELATED_UUID = '5FB2822E-396D-4725-8521-CDC4BDD20CCF';

/** Carta Porte 3.1: the issuer moving its own goods (T), or a carrier billing the freight (I). */
const EKU_SELF = { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'S01' };
const PACHUCA = { calle: 'Av. Juárez', numero_exterior: '100', estado: 'HID', pais: 'MEX', codigo_postal: '42501' };
const QUERETARO = { calle: 'Av. Constituyentes', numero_exterior: '25', municipio: '014', localidad: '01', estado: 'QUE', pais: 'MEX', codigo_postal: '76000' };
const MONTERREY = { calle: 'Av. Constitución', numero_exterior: '400', municipio: '039', localidad: '07', estado: 'NLE', pais: 'MEX', codigo_postal: '64000' };
const EKU_REMITE = { rfc_remitente_destinatario: 'EKU9003173C9', nombre_remitente_destinatario: 'ESCUELA KEMPER URGATE' };
const PEGAMENTO = {
  bienes_transp: '31201610',
  descripcion: 'Pegamento blanco en cubetas de 19 l',
  cantidad: '40',
  clave_unidad: 'H87',
  material_peligroso: false,
  peso_en_kg: '800',
};
/** A Traslado's conceptos are the goods its Carta Porte moves, by the same key, at no value. */
const PEGAMENTO_CONCEPTO = {
  clave_prod_serv: '31201610',
  clave_unidad: 'H87',
  descripcion: 'Pegamento blanco en cubetas de 19 l',
  cantidad: '40',
  valor_unitario: '0',
  objeto_imp: '01',
};
const OPERADOR = { tipo_figura: '01', rfc_figura: 'FUNK671228PH6', num_licencia: 'LFD0012345', nombre_figura: 'KARLA FUENTE NOLASCO' };
/** Comercio Exterior: the issuer's fiscal address (Monterrey Centro: c_Colonia 0001 of 64000, municipio 039, localidad 07). */
const EXPORTADOR = {
  calle: 'Av. Constitución',
  numero_exterior: '100',
  colonia: '0001',
  localidad: '07',
  municipio: '039',
  estado: 'NLE',
  pais: 'MEX',
  codigo_postal: '64000',
};
const AUSTIN = { calle: 'Congress Ave', numero_exterior: '500', estado: 'TX', pais: 'USA', codigo_postal: '78701' };
/** A foreign receptor: the generic RFC, its country and tax id; its DomicilioFiscalReceptor is the LugarExpedicion. */
const AUSTIN_IMPORTS = {
  rfc: 'XEXX010101000',
  nombre: 'AUSTIN IMPORTS LLC',
  regimen_fiscal: '616',
  domicilio_fiscal: '42501',
  residencia_fiscal: 'USA',
  num_reg_id_trib: '123456789',
  uso_cfdi: 'S01',
};
const IVA_0 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.000000' }] };
const export_ = (no_identificacion: string, clave_prod_serv: string, descripcion: string, cantidad: string, valor_unitario: string, clave_unidad = 'H87') => ({
  clave_prod_serv,
  no_identificacion,
  clave_unidad,
  descripcion,
  cantidad,
  valor_unitario,
  objeto_imp: '02',
  impuestos: IVA_0,
});

export const CfdiExamples = {
  ingreso: {
    summary: 'Ingreso: a service invoice with IVA 16 %, paid at once (PUE, transfer)',
    value: {
      tipo: 'I',
      forma_pago: '03',
      metodo_pago: 'PUE',
      receptor: { ...ICV, uso_cfdi: 'G03' },
      conceptos: [
        {
          clave_prod_serv: '84111506',
          clave_unidad: 'E48',
          descripcion: 'Servicio de facturación, noviembre',
          cantidad: '1',
          valor_unitario: '1000.00',
          objeto_imp: '02',
          impuestos: IVA_16,
        },
      ],
    },
  },
  egreso: {
    summary: 'Egreso: a credit note (nota de crédito) on an Ingreso',
    description: `cfdi_relacionados must name a vigente Ingreso of yours to the same receptor: replace ${EGRESO_RELATED_UUID} with its UUID.`,
    value: {
      tipo: 'E',
      forma_pago: '03',
      receptor: { ...ICV, uso_cfdi: 'G02' },
      cfdi_relacionados: [{ tipo_relacion: '01', uuids: [EGRESO_RELATED_UUID] }],
      conceptos: [
        {
          clave_prod_serv: '84111506',
          clave_unidad: 'ACT',
          descripcion: 'Bonificación por pronto pago',
          cantidad: '1',
          valor_unitario: '100.00',
          objeto_imp: '02',
          impuestos: IVA_16,
        },
      ],
    },
  },
  pago: {
    summary: 'Pago: a payment received for an invoice issued elsewhere (Complemento de Pagos 2.0)',
    description: 'For an invoice issued here, send its cfdi_id (or uuid) and imp_pagado only: the rest comes from the invoice.',
    value: {
      tipo: 'P',
      receptor: { ...ICV, uso_cfdi: 'CP01' },
      pagos: [
        {
          fecha_pago: '2026-10-15T12:00:00',
          forma_pago: '03',
          moneda: 'MXN',
          monto: '2900.00',
          documentos: [
            {
              uuid: '6A1C43B6-4F7D-4C55-9C0E-2F1A7B3D9E10',
              serie: 'EXT',
              folio: '881',
              moneda: 'MXN',
              num_parcialidad: 2,
              imp_saldo_ant: '5800.00',
              imp_pagado: '2900.00',
              objeto_imp: '02',
              impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000', base: '2500.00', importe: '400.00' }] },
            },
          ],
        },
      ],
    },
  },
  nomina: {
    summary: 'Nómina: an ordinary fortnightly payroll receipt (Complemento de Nómina 1.2)',
    value: {
      tipo: 'N',
      receptor: { rfc: 'XOJI740919U48', nombre: 'INGRID XODAR JIMENEZ', regimen_fiscal: '605', domicilio_fiscal: '88965', uso_cfdi: 'CN01' },
      nomina: {
        tipo_nomina: 'O',
        fecha_pago: '2026-04-30',
        fecha_inicial_pago: '2026-04-16',
        fecha_final_pago: '2026-04-30',
        num_dias_pagados: 15,
        emisor: { registro_patronal: 'B5510768108' },
        receptor: {
          curp: 'XOJI740919MJCDMN07',
          nss: '04078873454',
          fecha_inicio_rel_laboral: '2024-11-01',
          tipo_contrato: '01',
          sindicalizado: false,
          tipo_jornada: '01',
          tipo_regimen: '02',
          num_empleado: '120',
          departamento: 'Almacén',
          puesto: 'Auxiliar',
          riesgo_puesto: '1',
          periodicidad_pago: '04',
          cuenta_bancaria: '032180000118359719',
          salario_base_cot_apor: '293.26',
          salario_diario_integrado: '293.26',
          clave_ent_fed: 'JAL',
        },
        percepciones: [{ tipo_percepcion: '001', clave: 'P001', concepto: 'Sueldo', importe_gravado: '4200.00', importe_exento: '0.00' }],
        deducciones: [
          { tipo_deduccion: '001', clave: 'D001', concepto: 'IMSS', importe: '105.62' },
          { tipo_deduccion: '002', clave: 'D002', concepto: 'ISR', importe: '412.37' },
        ],
        otros_pagos: [{ tipo_otro_pago: '002', clave: 'OP002', concepto: 'Subsidio para el empleo', importe: '0.00', subsidio_causado: '0.00' }],
      },
    },
  },
  traslado: {
    summary: 'Traslado: own goods moved between branches (no value)',
    value: {
      tipo: 'T',
      receptor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'S01' },
      conceptos: [
        { clave_prod_serv: '43211503', clave_unidad: 'H87', descripcion: 'Computadora portátil', cantidad: '10', valor_unitario: '0', objeto_imp: '01' },
      ],
    },
  },
  traslado_carta_porte_autotransporte: {
    summary: 'Traslado with Carta Porte, by road: your own goods in your own truck, Pachuca → Querétaro',
    description:
      'IdCCP, TotalDistRec (the sum of the distances), PesoBrutoTotal, NumTotalMercancias and the IDUbicacion are computed. ' +
      'The receptor is yourself (S01) and the conceptos are the goods moved, by the same key as bienes_transp.',
    value: {
      tipo: 'T',
      receptor: EKU_SELF,
      conceptos: [PEGAMENTO_CONCEPTO],
      carta_porte: {
        ubicaciones: [
          { tipo_ubicacion: 'Origen', ...EKU_REMITE, fecha_hora_salida_llegada: '2026-11-20T08:00:00', domicilio: PACHUCA },
          { tipo_ubicacion: 'Destino', ...EKU_REMITE, fecha_hora_salida_llegada: '2026-11-20T12:30:00', distancia_recorrida: '215.5', domicilio: QUERETARO },
        ],
        mercancias: [PEGAMENTO],
        autotransporte: {
          perm_sct: 'TPAF02',
          num_permiso_sct: 'PRIV-HID-000123',
          identificacion_vehicular: { config_vehicular: 'C2', peso_bruto_vehicular: '12.50', placa_vm: '501AA2', anio_modelo_vm: 2022 },
          seguros: { asegura_resp_civil: 'SEGUROS DEL CENTRO', poliza_resp_civil: 'RC-2026-00123' },
        },
        figura_transporte: [OPERADOR],
      },
    },
  },
  ingreso_carta_porte_autotransporte: {
    summary: 'Ingreso with Carta Porte, by road: a carrier bills the freight of hazardous goods (diesel) in a tractor-trailer',
    description:
      'The concepto is the freight service (78101800) with IVA 16 % and the 4 % IVA withheld on road freight; the goods travel in the complement. ' +
      'Hazardous goods name their material and packaging, and the truck its environmental insurance.',
    value: {
      tipo: 'I',
      forma_pago: '03',
      metodo_pago: 'PUE',
      receptor: { ...ICV, uso_cfdi: 'G03' },
      conceptos: [
        {
          clave_prod_serv: '78101800',
          clave_unidad: 'E48',
          descripcion: 'Flete Pachuca – Monterrey',
          cantidad: '1',
          valor_unitario: '23500.00',
          objeto_imp: '02',
          impuestos: {
            traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }],
            retenciones: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.040000' }],
          },
        },
      ],
      carta_porte: {
        ubicaciones: [
          { tipo_ubicacion: 'Origen', ...EKU_REMITE, fecha_hora_salida_llegada: '2026-11-20T05:00:00', domicilio: PACHUCA },
          {
            tipo_ubicacion: 'Destino',
            rfc_remitente_destinatario: 'ICV060329BY0',
            nombre_remitente_destinatario: 'INMOBILIARIA CVA',
            fecha_hora_salida_llegada: '2026-11-20T16:00:00',
            distancia_recorrida: '812.5',
            domicilio: MONTERREY,
          },
        ],
        mercancias: [
          {
            bienes_transp: '15101505',
            descripcion: 'Combustible diésel',
            cantidad: '20000',
            clave_unidad: 'LTR',
            material_peligroso: true,
            cve_material_peligroso: '1202',
            embalaje: '1A1',
            descrip_embalaje: 'Tambores de acero',
            peso_en_kg: '16800',
          },
        ],
        autotransporte: {
          perm_sct: 'TPAF03',
          num_permiso_sct: 'AF-0012345',
          identificacion_vehicular: { config_vehicular: 'T3S2', peso_bruto_vehicular: '46.50', placa_vm: '12AB3C', anio_modelo_vm: 2021 },
          seguros: {
            asegura_resp_civil: 'SEGUROS DEL CENTRO',
            poliza_resp_civil: 'RC-2026-00123',
            asegura_med_ambiente: 'ECOSEGUROS',
            poliza_med_ambiente: 'MA-88231',
          },
          remolques: [{ sub_tipo_rem: 'CTR004', placa: '89UK2F' }],
        },
        figura_transporte: [OPERADOR],
      },
    },
  },
  traslado_carta_porte_maritimo: {
    summary: 'Traslado with Carta Porte, by sea: containerised cargo Manzanillo → Lázaro Cárdenas (cabotaje)',
    description:
      'Ports are c_Estaciones keys (their names are filled in); every mercancía details its weights, from which PesoBrutoTotal and PesoNetoTotal ' +
      'are computed. Maritime documents carry no distances.',
    value: {
      tipo: 'T',
      receptor: EKU_SELF,
      conceptos: [PEGAMENTO_CONCEPTO],
      carta_porte: {
        ubicaciones: [
          {
            tipo_ubicacion: 'Origen',
            ...EKU_REMITE,
            num_estacion: 'PM046',
            tipo_estacion: '01',
            navegacion_trafico: 'Cabotaje',
            fecha_hora_salida_llegada: '2026-11-20T18:00:00',
            domicilio: {
              calle: 'Av. Teniente Azueta',
              numero_exterior: '9',
              municipio: '007',
              localidad: '02',
              estado: 'COL',
              pais: 'MEX',
              codigo_postal: '28200',
            },
          },
          {
            tipo_ubicacion: 'Destino',
            ...EKU_REMITE,
            num_estacion: 'PM056',
            tipo_estacion: '03',
            navegacion_trafico: 'Cabotaje',
            fecha_hora_salida_llegada: '2026-11-21T14:00:00',
            domicilio: {
              calle: 'Av. Lázaro Cárdenas',
              numero_exterior: '1',
              municipio: '052',
              localidad: '21',
              estado: 'MIC',
              pais: 'MEX',
              codigo_postal: '60950',
            },
          },
        ],
        mercancias: [{ ...PEGAMENTO, detalle_mercancia: { unidad_peso_merc: 'KGM', peso_bruto: '820', peso_neto: '800', num_piezas: 40 } }],
        transporte_maritimo: {
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
        },
      },
    },
  },
  traslado_carta_porte_aereo: {
    summary: 'Traslado with Carta Porte, by air: computers Mexico City (AICM) → Monterrey',
    description: 'Airports are c_Estaciones keys; by air every mercancía declares its value, and there are no distances.',
    value: {
      tipo: 'T',
      receptor: EKU_SELF,
      conceptos: [
        { clave_prod_serv: '43211503', clave_unidad: 'H87', descripcion: 'Computadoras portátiles', cantidad: '25', valor_unitario: '0', objeto_imp: '01' },
      ],
      carta_porte: {
        ubicaciones: [
          {
            tipo_ubicacion: 'Origen',
            ...EKU_REMITE,
            num_estacion: 'EA0426',
            tipo_estacion: '01',
            fecha_hora_salida_llegada: '2026-11-20T21:00:00',
            domicilio: { calle: 'Av. Capitán Carlos León', municipio: '017', localidad: '15', estado: 'CMX', pais: 'MEX', codigo_postal: '15620' },
          },
          {
            tipo_ubicacion: 'Destino',
            ...EKU_REMITE,
            num_estacion: 'EA0448',
            tipo_estacion: '03',
            fecha_hora_salida_llegada: '2026-11-20T22:40:00',
            domicilio: { calle: 'Carretera Miguel Alemán km 24', municipio: '006', localidad: '01', estado: 'NLE', pais: 'MEX', codigo_postal: '66600' },
          },
        ],
        mercancias: [
          {
            bienes_transp: '43211503',
            descripcion: 'Computadoras portátiles',
            cantidad: '25',
            clave_unidad: 'H87',
            peso_en_kg: '62.5',
            valor_mercancia: '437500.00',
            moneda: 'MXN',
          },
        ],
        transporte_aereo: {
          perm_sct: 'TPTA01',
          num_permiso_sct: 'DGAC-CARGA-0098',
          matricula_aeronave: 'XA-MXA',
          numero_guia: '139-12345675',
          codigo_transportista: 'CA143',
          rfc_embarcador: 'EKU9003173C9',
          nombre_embarcador: 'ESCUELA KEMPER URGATE',
        },
      },
    },
  },
  traslado_carta_porte_ferroviario: {
    summary: 'Traslado with Carta Porte, by rail: Querétaro → Monterrey, through four intermediate stations',
    description:
      'SAT asks rail documents for at least 5 destinations (the intermediate stations, tipo_estacion 02, without an address, and the final ' +
      'one), each with its distance; PesoNetoTotal is the cars’ net tonnes.',
    value: {
      tipo: 'T',
      receptor: EKU_SELF,
      conceptos: [{ ...PEGAMENTO_CONCEPTO, cantidad: '400' }],
      carta_porte: {
        ubicaciones: [
          {
            tipo_ubicacion: 'Origen',
            ...EKU_REMITE,
            num_estacion: 'LJ246',
            tipo_estacion: '01',
            fecha_hora_salida_llegada: '2026-11-20T06:00:00',
            domicilio: QUERETARO,
          },
          {
            tipo_ubicacion: 'Destino',
            ...EKU_REMITE,
            num_estacion: 'A0292',
            tipo_estacion: '02',
            fecha_hora_salida_llegada: '2026-11-20T10:00:00',
            distancia_recorrida: '65',
          },
          {
            tipo_ubicacion: 'Destino',
            ...EKU_REMITE,
            num_estacion: 'B0525',
            tipo_estacion: '02',
            fecha_hora_salida_llegada: '2026-11-20T18:00:00',
            distancia_recorrida: '240',
          },
          {
            tipo_ubicacion: 'Destino',
            ...EKU_REMITE,
            num_estacion: 'B0915',
            tipo_estacion: '02',
            fecha_hora_salida_llegada: '2026-11-21T04:00:00',
            distancia_recorrida: '450',
          },
          {
            tipo_ubicacion: 'Destino',
            ...EKU_REMITE,
            num_estacion: 'K364.3',
            tipo_estacion: '02',
            fecha_hora_salida_llegada: '2026-11-21T05:00:00',
            distancia_recorrida: '12',
          },
          {
            tipo_ubicacion: 'Destino',
            ...EKU_REMITE,
            num_estacion: 'M523.5',
            tipo_estacion: '03',
            fecha_hora_salida_llegada: '2026-11-21T09:00:00',
            distancia_recorrida: '85',
            domicilio: MONTERREY,
          },
        ],
        mercancias: [{ ...PEGAMENTO, cantidad: '400', peso_en_kg: '8000' }],
        transporte_ferroviario: {
          tipo_de_servicio: 'TS01',
          tipo_de_trafico: 'TT01',
          carros: [{ tipo_carro: 'TC01', matricula_carro: 'FXE123456', guia_carro: 'G-7781', toneladas_netas_carro: '8' }],
        },
      },
    },
  },
  ingreso_impuestos_locales: {
    summary: 'Ingreso with Impuestos Locales 1.0: a hotel night with IVA 16 % and the state lodging tax (ISH) 3 %',
    description: 'ISH 45.00 on the 1,500.00 night is part of the Total: 1,500.00 + IVA 240.00 + ISH 45.00 = 1,785.00.',
    value: {
      tipo: 'I',
      forma_pago: '04',
      metodo_pago: 'PUE',
      receptor: { ...ICV, uso_cfdi: 'G03' },
      conceptos: [
        {
          clave_prod_serv: '90111800',
          clave_unidad: 'E48',
          descripcion: 'Hospedaje, habitación doble, una noche (20 al 21 de noviembre)',
          cantidad: '1',
          valor_unitario: '1500.00',
          objeto_imp: '02',
          impuestos: IVA_16,
        },
      ],
      impuestos_locales: { traslados: [{ imp_loc_trasladado: 'ISH', tasa_de_traslado: '3' }] },
    },
  },
  ingreso_hidrocarburos: {
    summary: 'Ingreso with Hidrocarburos y Petrolíferos 1.0: diesel sold by a service station, with its permit',
    description: 'A concepto of diesel (15101505), gasoline regular (15101514) or premium (15101515) on an Ingreso must carry it (RMF 2026 rule 2.7.1.48).',
    value: {
      tipo: 'I',
      forma_pago: '04',
      metodo_pago: 'PUE',
      receptor: { ...ICV, uso_cfdi: 'G03' },
      conceptos: [
        {
          clave_prod_serv: '15101505',
          clave_unidad: 'LTR',
          descripcion: 'Diésel',
          cantidad: '113.000',
          valor_unitario: '28.41',
          objeto_imp: '02',
          impuestos: IVA_16,
          hidrocarburos_petroliferos: { tipo_permiso: 'PER07', numero_permiso: 'PL/23456/EXP/ES/2024', sub_producto_hyp: 'SP18' },
        },
      ],
    },
  },
  ingreso_comercio_exterior: {
    summary: 'Ingreso with Comercio Exterior 2.0: a definitive export (A1) in USD, three mercancías, one billed in two conceptos',
    value: {
      tipo: 'I',
      exportacion: '02',
      forma_pago: '03',
      metodo_pago: 'PUE',
      moneda: 'USD',
      tipo_cambio: '17.2345',
      receptor: AUSTIN_IMPORTS,
      conceptos: [
        export_('CAFE-01', '50201706', 'Café de altura, sacos de 50 kg', '100', '12.35', 'KGM'),
        export_('CALD-02', '40102000', 'Caldera industrial de vapor', '2', '1500'),
        export_('CAFE-01', '50201706', 'Café de altura, sacos de 50 kg (segundo lote)', '40', '12.35', 'KGM'),
        export_('QUEM-03', '40102003', 'Quemador eléctrico', '3', '980.50'),
      ],
      comercio_exterior: {
        clave_de_pedimento: 'A1',
        certificado_origen: 0,
        incoterm: 'FCA',
        emisor: { domicilio: EXPORTADOR },
        receptor: { domicilio: AUSTIN },
        mercancias: [
          { no_identificacion: 'CAFE-01', fraccion_arancelaria: '0901110300', cantidad_aduana: '140', unidad_aduana: '01', valor_unitario_aduana: '12.35' },
          {
            no_identificacion: 'CALD-02',
            fraccion_arancelaria: '8403100100',
            cantidad_aduana: '2',
            unidad_aduana: '06',
            valor_unitario_aduana: '1500',
            descripciones_especificas: [{ marca: 'ACME', modelo: 'V-200', numero_serie: 'SN-2026-0001' }],
          },
          { no_identificacion: 'QUEM-03', fraccion_arancelaria: '8403100100', cantidad_aduana: '3', unidad_aduana: '06', valor_unitario_aduana: '980.50' },
        ],
      },
    },
  },
  traslado_comercio_exterior: {
    summary: "Traslado with Comercio Exterior 2.0: own goods sent abroad to the issuer's own warehouse (MotivoTraslado 02)",
    value: {
      tipo: 'T',
      exportacion: '02',
      moneda: 'MXN',
      receptor: EKU_SELF,
      conceptos: [
        {
          clave_prod_serv: '40102000',
          no_identificacion: 'CALD-02',
          clave_unidad: 'H87',
          descripcion: 'Caldera industrial de vapor (muestra de exhibición)',
          cantidad: '1',
          valor_unitario: '25000.00',
          objeto_imp: '01',
        },
      ],
      comercio_exterior: {
        motivo_traslado: '02',
        clave_de_pedimento: 'A1',
        incoterm: 'DAP',
        tipo_cambio_usd: '17.2345',
        emisor: { domicilio: EXPORTADOR },
        receptor: { domicilio: AUSTIN },
        mercancias: [
          { no_identificacion: 'CALD-02', fraccion_arancelaria: '8403100100', cantidad_aduana: '1', unidad_aduana: '06', valor_unitario_aduana: '1450.58' },
        ],
      },
    },
  },
} satisfies BodyExamples<z.input<typeof CfdiRequestSchema>>;
