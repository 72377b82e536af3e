import { z } from '@hono/zod-openapi';
import type { CartaPorteInput } from '../../../cfdi/complements/cartaporte31/input.ts';
import { ID_CCP, UUID } from '../../../cfdi/patterns.ts';
import { Amount, code, type Fits, integer, num, Rfc, str } from '../fields.ts';
import type { WireComplement } from './index.ts';

/**
 * The `carta_porte` member of POST /cfdis (tipo T or I): Complemento Carta Porte 3.1 in snake_case. Only format
 * checks live here (CartaPorte31.xsd patterns, lengths, enums); catalog and consistency rules are in
 * src/cfdi/complements/cartaporte31/rules/ (docs/cartaporte31.md lists them). What SAT computes is filled in, and checked
 * when sent.
 */

/** A positive decimal with at most `digits` decimals (rejected, not rounded: a weight or a distance is never altered). */
const positive = (digits: number, example: string, max?: number) =>
  Amount.refine((v) => !new RegExp(`\\.\\d{${digits + 1}}`).test(v), `must have at most ${digits} decimals`)
    .refine((v) => /[1-9]/.test(v), 'must be greater than 0')
    .refine((v) => max === undefined || Number(v) <= max, `must be at most ${max}`)
    .openapi({ type: ['number', 'string'], example });
/** Kilograms and tonnes: 3 decimals (CartaPorte31.xsd). */
const Peso = positive(3, '1500.000');
/** Quantities: 6 decimals. */
const Cantidad = positive(6, '10');
/** Kilometres: 2 decimals, at most 99999. */
const Distancia = positive(2, '250.5', 99999);
/** Feet and lengths: 2 decimals. */
const Medida = positive(2, '120.50');

/** xs:dateTime restricted by t_FechaH: local time, no zone. */
const FECHA_H = /^20[1-9]\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/;
const FechaH = z.string().regex(FECHA_H, 'must be YYYY-MM-DDThh:mm:ss (local time, no zone)').openapi({ example: '2026-11-20T08:00:00' });
const Fecha = z
  .string()
  .regex(/^(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be a date YYYY-MM-DD')
  .openapi({ example: '2027-06-30' });

const NumRegIdTrib = str(40, 6).openapi({ description: 'Foreign tax id: required with RFC XEXX010101000' });
const Pais = code(/^[A-Z]{3}$/, 'must be a 3-letter c_Pais key', 'MEX');
/** A vehicle or trailer plate: letters and digits only, 5 to 7 of them (PlacaVM, Placa, PlacaCCP). */
const Placa = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9]{5,7}$/, 'must be 5 to 7 letters or digits, without hyphens or spaces')
  .openapi({ example: '501AA2' });
/** AnioModeloVM, AnioEmbarcacion: a year 1900–2099. */
const Anio = integer(1900, 2099).openapi({ example: 2022 });

const Domicilio = z
  .object({
    calle: str(100).optional(),
    numero_exterior: str(55).optional(),
    numero_interior: str(55).optional(),
    colonia: str(120).optional().openapi({ description: 'In Mexico the c_Colonia key (4 digits) or its name' }),
    localidad: str(120).optional().openapi({ description: 'In Mexico a c_Localidad key of the estado (checked against the código postal)' }),
    referencia: str(250).optional(),
    municipio: str(120).optional().openapi({ description: 'In Mexico a c_Municipio key of the estado (checked against the código postal)' }),
    estado: str(30).openapi({ example: 'HID', description: 'c_Estado key for MEX, USA and CAN (e.g. NLE, TX); free text elsewhere' }),
    pais: Pais,
    codigo_postal: str(12).openapi({ example: '42501', description: 'In Mexico a c_CodigoPostal key of the estado' }),
  })
  .strict()
  .openapi('CartaPorteDomicilio');

const Ubicacion = z
  .object({
    tipo_ubicacion: z.enum(['Origen', 'Destino'], { message: 'must be Origen or Destino' }),
    id_ubicacion: code(/^(OR|DE)\d{6}$/, 'must be OR or DE followed by 6 digits', 'DE000001')
      .optional()
      .openapi({ description: 'IDUbicacion. Default: OR or DE and the position among the origins or destinations (OR000001, DE000001, DE000002, …)' }),
    rfc_remitente_destinatario: Rfc.openapi({ description: 'RFC of the sender (Origen) or the addressee (Destino); XEXX010101000 for a foreign one' }),
    nombre_remitente_destinatario: str(254).optional(),
    num_reg_id_trib: NumRegIdTrib.optional(),
    residencia_fiscal: Pais.optional().openapi({ description: 'Required with RFC XEXX010101000: a country other than MEX' }),
    num_estacion: str(60).optional().openapi({ description: 'c_Estaciones key of the port, airport or rail station (maritime, air or rail transport)' }),
    nombre_estacion: str(50).optional().openapi({ description: "Default: the station's name in c_Estaciones" }),
    navegacion_trafico: z
      .enum(['Altura', 'Cabotaje'], { message: 'must be Altura or Cabotaje' })
      .optional()
      .openapi({ description: 'Maritime transport only (required there)' }),
    fecha_hora_salida_llegada: FechaH.openapi({ description: 'Departure (Origen) or arrival (Destino), estimated: each after the previous ubicación' }),
    tipo_estacion: code(/^\d{2}$/, 'must be a 2-digit c_TipoEstacion key', '01')
      .optional()
      .openapi({ description: 'c_TipoEstacion (01 origin, 02 intermediate, 03 final destination): maritime, air or rail transport' }),
    distancia_recorrida: Distancia.optional().openapi({ description: 'Kilometres from the previous point to this Destino: required by road' }),
    domicilio: Domicilio.optional().openapi({ description: 'Required by road, and at stations other than intermediate ones (tipo_estacion 02)' }),
  })
  .strict()
  .openapi('CartaPorteUbicacion');

const Texto = (max: number, min = 1) => str(max, min).optional();

const Mercancia = z
  .object({
    bienes_transp: code(/^\d{8}$/, 'must be an 8-digit c_ClaveProdServCP key', '24112700').openapi({
      description: 'c_ClaveProdServCP: its material_peligroso column decides material_peligroso (1: true; 0,1: say which; 0: not true)',
    }),
    clave_stcc: code(/^\d{6,7}$/, 'must be a 6- or 7-digit STCC key', '2041100')
      .optional()
      .openapi({ description: 'Rail transport only' }),
    descripcion: str(1000).openapi({ example: 'Tarimas de madera' }),
    cantidad: Cantidad,
    clave_unidad: z.string().min(1).max(3).openapi({ example: 'H87', description: 'c_ClaveUnidad' }),
    unidad: str(20).optional(),
    dimensiones: code(/^(\d{1,3}\/){2}\d{1,3}(cm|plg)$/, 'must be length/height/width and cm or plg, e.g. 30/40/30cm', '30/40/30cm').optional(),
    material_peligroso: z
      .boolean({ message: 'must be true or false' })
      .optional()
      .openapi({ description: 'MaterialPeligroso Sí/No. Required when c_ClaveProdServCP says 0,1; must be true when it says 1' }),
    cve_material_peligroso: code(/^(\d{4}|M\d{4})$/, 'must be a c_MaterialPeligroso key (4 digits)', '1203')
      .optional()
      .openapi({ description: 'Required with material_peligroso true' }),
    embalaje: code(/^[0-9A-Z.]{1,6}$/, 'must be a c_TipoEmbalaje key', '1A1')
      .optional()
      .openapi({ description: 'Required with material_peligroso true' }),
    descrip_embalaje: Texto(100),
    sector_cofepris: code(/^\d{2}$/, 'must be a 2-digit c_SectorCOFEPRIS key', '01')
      .optional()
      .openapi({
        description:
          'c_SectorCOFEPRIS; each sector needs its fields (01/03: denominaciones, fabricante, caducidad, lote, forma farmacéutica, condiciones, registro sanitario; 02: ingrediente activo, nombre químico, …; 04: nombre químico, num_cas; 05: ingrediente activo, registro, datos del fabricante, uso autorizado)',
      }),
    nombre_ingrediente_activo: Texto(1000),
    nom_quimico: Texto(150),
    denominacion_generica_prod: Texto(50),
    denominacion_distintiva_prod: Texto(50),
    fabricante: Texto(240),
    fecha_caducidad: Fecha.optional(),
    lote_medicamento: Texto(10),
    forma_farmaceutica: code(/^\d{2}$/, 'must be a 2-digit c_FormaFarmaceutica key', '01').optional(),
    condiciones_esp_transp: code(/^\d{2}$/, 'must be a 2-digit c_CondicionesEspeciales key', '02').optional(),
    registro_sanitario_folio_autorizacion: Texto(15),
    permiso_importacion: Texto(6),
    folio_impo_vucem: Texto(25),
    num_cas: Texto(15),
    razon_social_emp_imp: Texto(80),
    num_reg_san_plag_cofepris: Texto(60),
    datos_fabricante: Texto(600),
    datos_formulador: Texto(600),
    datos_maquilador: Texto(600),
    uso_autorizado: Texto(1000),
    peso_en_kg: Peso.openapi({ description: 'Estimated weight in kg (PesoBrutoTotal is their sum)' }),
    valor_mercancia: Amount.optional().openapi({ description: 'Value of the goods; with moneda' }),
    moneda: code(/^[A-Z]{3}$/, 'must be a c_Moneda key', 'MXN').optional(),
    fraccion_arancelaria: code(/^\d{8,10}$/, 'must be a c_FraccionArancelaria key (8 or 10 digits)', '4415100100')
      .optional()
      .openapi({ description: 'Required with transp_internac true' }),
    uuid_comercio_ext: z
      .string()
      .regex(UUID, 'must be a UUID')
      .optional()
      .openapi({ description: 'The Comercio Exterior CFDI of the goods (international only)' }),
    tipo_materia: code(/^\d{2}$/, 'must be a 2-digit c_TipoMateria key', '03')
      .optional()
      .openapi({ description: 'Required with transp_internac true' }),
    descripcion_materia: Texto(50).openapi({ description: 'Required with tipo_materia 05 (Otra)' }),
    documentacion_aduanera: z
      .array(
        z
          .object({
            tipo_documento: code(/^\d{2}$/, 'must be a 2-digit c_DocumentoAduanero key', '01'),
            num_pedimento: code(
              /^\d{2} {2}\d{2} {2}\d{4} {2}\d{7}$/,
              'must be a pedimento number: 2, 2, 4 and 7 digits separated by two spaces',
              '24  43  3434  4000123',
            )
              .optional()
              .openapi({ description: 'Required with tipo_documento 01 (pedimento)' }),
            ident_doc_aduanero: Texto(150).openapi({ description: 'Folio of any customs document other than a pedimento' }),
            rfc_impo: Rfc.optional().openapi({ description: "The importer's RFC on the pedimento" }),
          })
          .strict(),
      )
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'Required for goods entering the country (entrada_salida_merc Entrada)' }),
    guias_identificacion: z
      .array(
        z
          .object({
            numero_guia_identificacion: str(30, 10).openapi({ example: '0123456789' }),
            descrip_guia_identificacion: str(1000),
            peso_guia_identificacion: Peso,
          })
          .strict(),
      )
      .min(1)
      .max(1000)
      .optional(),
    cantidad_transporta: z
      .array(
        z
          .object({
            cantidad: Cantidad,
            id_origen: code(/^OR\d{6}$/, 'must be the id_ubicacion of an Origen (OR + 6 digits)', 'OR000001'),
            id_destino: code(/^DE\d{6}$/, 'must be the id_ubicacion of a Destino (DE + 6 digits)', 'DE000001'),
            cves_transporte: code(/^\d{2}$/, 'must be a 2-digit c_CveTransporte key', '01')
              .optional()
              .openapi({ description: 'Required when the Carta Porte has more than one transport' }),
          })
          .strict(),
      )
      .min(1)
      .max(1000)
      .optional()
      .openapi({ description: 'How much goes from which origin to which destination; the cantidades add up to cantidad' }),
    detalle_mercancia: z
      .object({
        unidad_peso_merc: z.string().min(1).max(3).openapi({ example: 'KGM', description: 'c_ClaveUnidadPeso' }),
        peso_bruto: Peso,
        peso_neto: Peso,
        peso_tara: Peso.optional().openapi({ description: 'Computed (peso_bruto − peso_neto) when omitted; checked when sent' }),
        num_piezas: integer(1, 2_147_483_647).optional(),
      })
      .strict()
      .optional()
      .openapi({ description: 'Required with transporte_maritimo' }),
  })
  .strict()
  .openapi('CartaPorteMercancia');

const Autotransporte = z
  .object({
    perm_sct: code(/^TP[A-Z]{2}\d{2}$/, 'must be a c_TipoPermiso key', 'TPAF01').openapi({ description: 'c_TipoPermiso for road transport (TPAF…, TPXX00)' }),
    num_permiso_sct: str(50).openapi({ example: '0X2XTXZ0X5X0X3X2X1X0' }),
    identificacion_vehicular: z
      .object({
        config_vehicular: code(/^[A-Z0-9]{2,8}$/, 'must be a c_ConfigAutotransporte key', 'C2').openapi({
          description: 'c_ConfigAutotransporte; its remolque column says whether remolques are required (1), forbidden (0) or optional',
        }),
        peso_bruto_vehicular: positive(2, '18.50').openapi({ description: 'Gross vehicle weight allowed, in tonnes (NOM-012-SCT-2-2017)' }),
        placa_vm: Placa,
        anio_modelo_vm: Anio,
      })
      .strict(),
    seguros: z
      .object({
        asegura_resp_civil: str(50, 3).openapi({ example: 'SEGUROS AZTECA' }),
        poliza_resp_civil: str(30, 3).openapi({ example: 'RC-2026-00123' }),
        asegura_med_ambiente: str(50, 3).optional().openapi({ description: 'Required when a mercancía is hazardous' }),
        poliza_med_ambiente: str(30, 3).optional().openapi({ description: 'Required when a mercancía is hazardous' }),
        asegura_carga: str(50, 3).optional(),
        poliza_carga: str(30, 3).optional(),
        prima_seguro: Amount.optional(),
      })
      .strict(),
    remolques: z
      .array(
        z
          .object({
            sub_tipo_rem: code(/^CTR\d{3}$/, 'must be a c_SubTipoRem key', 'CTR004'),
            placa: Placa,
          })
          .strict(),
      )
      .min(1)
      .max(2, 'at most 2 trailers')
      .optional(),
  })
  .strict()
  .openapi('CartaPorteAutotransporte');

const TransporteMaritimo = z
  .object({
    perm_sct: code(/^TP[A-Z]{2}\d{2}$/, 'must be a c_TipoPermiso key', 'TPTM01').optional(),
    num_permiso_sct: str(30).optional(),
    nombre_aseg: str(50, 3).optional(),
    num_poliza_seguro: str(30, 3).optional(),
    tipo_embarcacion: code(/^B\d{2}$/, 'must be a c_ConfigMaritima key', 'B01'),
    matricula: str(30, 7).openapi({ example: '2806031711' }),
    numero_omi: code(/^IMO\d{7}$/, 'must be IMO followed by 7 digits', 'IMO9300001'),
    anio_embarcacion: Anio.optional(),
    nombre_embarc: str(50).optional(),
    nacionalidad_embarc: Pais,
    unidades_de_arq_bruto: positive(3, '4500'),
    tipo_carga: code(/^[A-Z]{3}$/, 'must be a c_ClaveTipoCarga key', 'CGC'),
    eslora: Medida.optional(),
    manga: Medida.optional(),
    calado: Medida.optional(),
    puntal: Medida.optional(),
    linea_naviera: str(50, 3).optional(),
    nombre_agente_naviero: str(100),
    num_autorizacion_naviero: str(20).openapi({ example: 'ANG031/2024', description: 'c_NumAutorizacionNaviero, in force on the CFDI date' }),
    num_viaje: str(30).optional(),
    num_conoc_embarc: str(30).optional(),
    permiso_temp_navegacion: str(19).optional(),
    contenedores: z
      .array(
        z
          .object({
            tipo_contenedor: code(/^CM\d{3}$/, 'must be a c_ContenedorMaritimo key', 'CM005'),
            matricula_contenedor: str(15, 11).optional().openapi({ example: 'MSCU1234565' }),
            num_precinto: str(20, 5).optional(),
            id_ccp_relacionado: z.string().regex(ID_CCP, 'must be an IdCCP (CCC + 33 characters of a UUID)').optional().openapi({ description: 'Ferry only' }),
            placa_vm_ccp: Placa.optional().openapi({ description: 'Ferry only' }),
            fecha_certificacion_ccp: FechaH.optional().openapi({ description: 'Ferry only' }),
            remolques_ccp: z
              .array(z.object({ sub_tipo_rem_ccp: code(/^CTR\d{3}$/, 'must be a c_SubTipoRem key', 'CTR004'), placa_ccp: Placa }).strict())
              .min(1)
              .max(2, 'at most 2 trailers')
              .optional()
              .openapi({ description: 'Ferry only' }),
          })
          .strict(),
      )
      .min(1)
      .max(1000)
      .optional()
      .openapi({ description: 'Required with tipo_carga CGC (containerised)' }),
  })
  .strict()
  .openapi('CartaPorteTransporteMaritimo');

const TransporteAereo = z
  .object({
    perm_sct: code(/^TP[A-Z]{2}\d{2}$/, 'must be a c_TipoPermiso key', 'TPTA01').openapi({ description: 'c_TipoPermiso for air transport (TPTA…, TPXX00)' }),
    num_permiso_sct: str(50),
    matricula_aeronave: code(/^[A-Z0-9-]{5,11}$/, 'must be 5 to 11 capital letters, digits or hyphens', 'XA-ABC').optional(),
    nombre_aseg: str(50, 3).optional(),
    num_poliza_seguro: str(30, 3).optional(),
    numero_guia: str(15, 12).openapi({ example: '139-12345675' }),
    lugar_contrato: str(120).optional(),
    codigo_transportista: code(/^CA\d{3}$/, 'must be a c_CodigoTransporteAereo key', 'CA001'),
    rfc_embarcador: Rfc.optional(),
    num_reg_id_trib_embarc: NumRegIdTrib.optional(),
    residencia_fiscal_embarc: Pais.optional(),
    nombre_embarcador: str(254).optional(),
  })
  .strict()
  .openapi('CartaPorteTransporteAereo');

const TransporteFerroviario = z
  .object({
    tipo_de_servicio: code(/^TS\d{2}$/, 'must be a c_TipoDeServicio key', 'TS01'),
    tipo_de_trafico: code(/^TT\d{2}$/, 'must be a c_TipoDeTrafico key', 'TT01'),
    nombre_aseg: str(50, 3).optional(),
    num_poliza_seguro: str(30, 3).optional(),
    derechos_de_paso: z
      .array(z.object({ tipo_derecho_de_paso: code(/^CDP\d{3}$/, 'must be a c_DerechosDePaso key', 'CDP114'), kilometraje_pagado: Medida }).strict())
      .min(1)
      .max(1000)
      .optional(),
    carros: z
      .array(
        z
          .object({
            tipo_carro: code(/^TC\d{2}$/, 'must be a c_TipoCarro key', 'TC01'),
            matricula_carro: str(15, 6).openapi({ example: 'FXE123456' }),
            guia_carro: str(15).openapi({ example: 'G-7781' }),
            toneladas_netas_carro: positive(3, '60').optional().openapi({
              description:
                'Net tonnes in the car: required without contenedores; with them computed (Σ peso_neto_mercancia ÷ 1000) when omitted, checked when sent',
            }),
            contenedores: z
              .array(
                z
                  .object({
                    tipo_contenedor: code(/^TC\d{2}$/, 'must be a c_Contenedor key', 'TC02'),
                    peso_contenedor_vacio: Peso,
                    peso_neto_mercancia: Peso,
                  })
                  .strict(),
              )
              .min(1)
              .max(1000)
              .optional()
              .openapi({ description: 'Required with an intermodal tipo_de_servicio (TS02, TS04); forbidden with the others' }),
          })
          .strict(),
      )
      .min(1, 'must list at least one carro')
      .max(1000),
  })
  .strict()
  .openapi('CartaPorteTransporteFerroviario');

const TipoFigura = z
  .object({
    tipo_figura: code(/^\d{2}$/, 'must be a 2-digit c_FiguraTransporte key', '01').openapi({
      description: 'c_FiguraTransporte: 01 operador, 02 propietario, 03 arrendador, 04 notificado',
    }),
    rfc_figura: Rfc.optional().openapi({ description: 'Leave out for a foreign figura: then num_reg_id_trib_figura and residencia_fiscal_figura' }),
    num_licencia: str(16, 6).optional().openapi({ example: 'LFD0012345', description: "Operator's licence: required for tipo_figura 01 with autotransporte" }),
    nombre_figura: str(254).openapi({ example: 'JUAN PÉREZ LÓPEZ' }),
    num_reg_id_trib_figura: NumRegIdTrib.optional(),
    residencia_fiscal_figura: Pais.optional(),
    partes_transporte: z
      .array(code(/^PT\d{2}$/, 'must be a c_ParteTransporte key', 'PT01'))
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'c_ParteTransporte keys of the parts an owner (02) or lessor (03) provides; required for them' }),
    domicilio: Domicilio.optional(),
  })
  .strict()
  .openapi('CartaPorteFigura');

export const CartaPorteRequestSchema = z
  .object({
    id_ccp: z
      .string()
      .regex(ID_CCP, 'must be CCC followed by the last 33 characters of a UUID (CCCxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)')
      .optional()
      .openapi({ description: 'IdCCP. Default: "CCC" and the rest of a random UUID (SAT’s pattern), returned as carta_porte.id_ccp' }),
    transp_internac: z
      .boolean({ message: 'must be true or false' })
      .optional()
      .openapi({ description: 'TranspInternac: the goods enter or leave Mexico. Default false' }),
    entrada_salida_merc: z
      .enum(['Entrada', 'Salida'], { message: 'must be Entrada or Salida' })
      .optional()
      .openapi({ description: 'International only (required there)' }),
    pais_origen_destino: Pais.optional().openapi({ description: 'International only (required there): the foreign country' }),
    via_entrada_salida: code(/^\d{2}$/, 'must be a 2-digit c_CveTransporte key', '01')
      .optional()
      .openapi({ description: 'International only (required there)' }),
    total_dist_rec: Distancia.optional().openapi({
      description: "TotalDistRec: computed as the sum of the destinations' distancia_recorrida when omitted; checked when sent",
    }),
    registro_istmo: z
      .boolean({ message: 'must be true or false' })
      .optional()
      .openapi({ description: 'A trip inside the Polos de Desarrollo del Istmo de Tehuantepec' }),
    ubicacion_polo_origen: code(/^\d{2}$/, 'must be a 2-digit c_RegistroISTMO key', '01').optional(),
    ubicacion_polo_destino: code(/^\d{2}$/, 'must be a 2-digit c_RegistroISTMO key', '02').optional(),
    regimenes_aduaneros: z
      .array(code(/^[A-Z]{3}$/, 'must be a c_RegimenAduanero key', 'IMD'))
      .min(1)
      .max(10, 'at most 10 customs regimes')
      .optional()
      .openapi({ description: 'International only (required there): c_RegimenAduanero keys matching entrada_salida_merc' }),
    ubicaciones: z
      .array(Ubicacion)
      .min(2, 'must list at least an Origen and a Destino')
      .max(1000)
      .openapi({ description: 'The route in order: the origin(s), then each destination as it is reached' }),
    unidad_peso: z.string().min(1).max(3).optional().openapi({ example: 'KGM', description: 'UnidadPeso (c_ClaveUnidadPeso). Default KGM' }),
    peso_bruto_total: Peso.optional().openapi({ description: 'Computed (Σ mercancias[].peso_en_kg) when omitted; checked when sent' }),
    peso_neto_total: Peso.optional().openapi({ description: 'Computed (Σ detalle_mercancia.peso_neto) when omitted; checked when sent' }),
    num_total_mercancias: integer(1, 2_147_483_647).optional().openapi({ description: 'Computed (the number of mercancias) when omitted; checked when sent' }),
    cargo_por_tasacion: Amount.optional().openapi({ description: 'Air transport only' }),
    logistica_inversa_recoleccion_devolucion: z.boolean({ message: 'must be true or false' }).optional(),
    mercancias: z.array(Mercancia).min(1, 'must list at least one mercancía').max(10000),
    autotransporte: Autotransporte.optional(),
    transporte_maritimo: TransporteMaritimo.optional(),
    transporte_aereo: TransporteAereo.optional(),
    transporte_ferroviario: TransporteFerroviario.optional(),
    figura_transporte: z
      .array(TipoFigura)
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'TiposFigura: required with autotransporte (its operator, tipo_figura 01, with num_licencia)' }),
  })
  .strict()
  .openapi('CartaPorte', {
    description:
      'Complemento Carta Porte 3.1 (tipo T or I). At least one transport section. IdCCP, TotalDistRec, PesoBrutoTotal, PesoNetoTotal, ' +
      'NumTotalMercancias, PesoTara and IDUbicacion are computed; the rules are in docs/cartaporte31.md.',
  });

export type CartaPorteRequest = Fits<z.output<typeof CartaPorteRequestSchema>, CartaPorteInput>;

const CartaPorteResponse = z
  .object({
    id_ccp: z.string().openapi({ example: 'CCC5E2B1-94A3-4F0B-8D2C-6A1E7B3F9D20', description: 'IdCCP: the Carta Porte folio (second QR of the PDF)' }),
    total_dist_rec: z.number().optional().openapi({ description: 'TotalDistRec, km' }),
    peso_bruto_total: z.number(),
    unidad_peso: z.string(),
    num_total_mercancias: z.number().int(),
  })
  .optional()
  .openapi({ description: 'Carta Porte 3.1 (T or I): the identifier and the totals computed' });

export const cartaporte31 = {
  request: CartaPorteRequestSchema.optional().openapi({
    description:
      'Traslado (T) or Ingreso (I) only: the Complemento Carta Porte 3.1 that moving goods on federal roads, by rail, sea or air needs ' +
      '(a T when you move your own goods, an I when you bill the freight)',
  }),
  carriedBy: ({ tipo }, sent) =>
    sent && tipo !== 'T' && tipo !== 'I'
      ? { message: `is only for tipo T (own goods moved) or I (a carrier billing the freight), not ${tipo}`, rule: 'CP114' }
      : undefined,
  response: CartaPorteResponse,
  toWire: (c) => ({
    id_ccp: c.id_ccp,
    total_dist_rec: num(c.total_dist_rec),
    peso_bruto_total: Number(c.peso_bruto_total),
    unidad_peso: c.unidad_peso,
    num_total_mercancias: c.num_total_mercancias,
  }),
} satisfies WireComplement<'carta_porte', typeof CartaPorteResponse>;
