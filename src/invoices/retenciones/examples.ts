import type { z } from '@hono/zod-openapi';
import type { BodyExamples } from '../../lib/schemas.ts';
import type { RetencionBatchRequestSchema, RetencionCancelBody, RetencionEmailRequest, RetencionRequestSchema, RetencionSchema } from './schemas.ts';

/** The OpenAPI examples of POST /retenciones (and /validate): each stamps as it is (tests/invoices/retenciones). */

const KARLA = {
  nacionalidad: 'Nacional',
  rfc: 'FUNK671228PH6',
  nombre: 'KARLA FUENTE NOLASCO',
  curp: 'FUNK671228MCLNLR05',
  domicilio_fiscal: '01000',
} as const;
const FOREIGN = { nacionalidad: 'Extranjero', nombre: 'WORLD WIDE COMPANY INC', num_reg_id_trib: '998877665544332211' } as const;

export const RetencionExamples = {
  retencion_plataformas_tecnologicas: {
    summary: 'A digital platform: one month of a seller, ISR and IVA withheld (Servicios de Plataformas Tecnológicas)',
    description: 'cve_retenc 26; the complement lists each service, and every total of it is computed (IVA charged, withheld, the platform fee)',
    value: {
      cve_retenc: '26',
      receptor: KARLA,
      periodo: { mes_ini: '10', mes_fin: '10', ejercicio: '2026' },
      totales: { monto_tot_operacion: '10000', monto_tot_grav: '10000' },
      impuestos_retenidos: [
        { impuesto_ret: '001', base_ret: '10000', tasa: '0.025', tipo_pago_ret: '04' },
        { impuesto_ret: '002', base_ret: '10000', tasa: '0.08', tipo_pago_ret: '01' },
      ],
      plataformas_tecnologicas: {
        periodicidad: '04',
        servicios: [
          {
            forma_pago_serv: '03',
            tipo_de_serv: '01',
            fecha_serv: '2026-10-05',
            precio_serv_sin_iva: '6000',
            impuestos_trasladados: { tasa_cuota: '0.16' },
            comision_del_servicio: { base: '6000', porcentaje: '0.1' },
          },
          {
            forma_pago_serv: '03',
            tipo_de_serv: '11',
            sub_tip_serv: '09',
            fecha_serv: '2026-10-20',
            precio_serv_sin_iva: '4000',
            impuestos_trasladados: { tasa_cuota: '0.16' },
            comision_del_servicio: { importe: '400' },
          },
        ],
      },
    },
  },
  retencion_dividendos: {
    summary: 'Dividends paid to a foreign shareholder, ISR withheld (Dividendos)',
    value: {
      cve_retenc: '14',
      receptor: FOREIGN,
      periodo: { mes_ini: '01', mes_fin: '11', ejercicio: '2026' },
      totales: { monto_tot_operacion: '500000', monto_tot_grav: '500000' },
      impuestos_retenidos: [{ impuesto_ret: '001', base_ret: '500000', tasa: '0.10', tipo_pago_ret: '03' }],
      dividendos: {
        divid_o_util: {
          cve_tip_div_o_util: '01',
          mont_isr_acred_ret_mexico: '50000',
          mont_isr_acred_ret_extranjero: '0',
          tipo_soc_distr_div: 'Sociedad Nacional',
        },
      },
    },
  },
  retencion_pagos_extranjeros: {
    summary: 'Royalties paid to a foreign resident, ISR withheld (Pagos a extranjeros)',
    value: {
      cve_retenc: '18',
      receptor: FOREIGN,
      periodo: { mes_ini: '11', mes_fin: '11', ejercicio: '2026' },
      totales: { monto_tot_operacion: '100000', monto_tot_grav: '100000' },
      impuestos_retenidos: [{ impuesto_ret: '001', base_ret: '100000', tasa: '0.25', tipo_pago_ret: '03' }],
      pagos_a_extranjeros: {
        es_benef_efect_del_cobro: 'NO',
        no_beneficiario: { pais_de_resid_para_efec_fisc: 'US', concepto_pago: '2', descripcion_concepto: 'Regalías por el uso de software' },
      },
    },
  },
  retencion_arrendamiento: {
    summary: 'A company renting from an individual: ISR 10 % and two thirds of the 16 % IVA withheld (no complement)',
    value: {
      cve_retenc: '05',
      receptor: KARLA,
      periodo: { mes_ini: '11', mes_fin: '11', ejercicio: '2026' },
      totales: { monto_tot_operacion: '20000', monto_tot_grav: '20000' },
      impuestos_retenidos: [
        { impuesto_ret: '001', base_ret: '20000', tasa: '0.10', tipo_pago_ret: '04' },
        { impuesto_ret: '002', base_ret: '20000', tasa: '0.106667', tipo_pago_ret: '01' },
      ],
    },
  },
} satisfies BodyExamples<z.input<typeof RetencionRequestSchema>>;

const plataformasFor = (rfc: string, nombre: string, curp: string, precio: string) => {
  const v = RetencionExamples.retencion_plataformas_tecnologicas.value;
  return {
    ...v,
    receptor: { ...KARLA, rfc, nombre, curp },
    totales: { monto_tot_operacion: precio, monto_tot_grav: precio },
    impuestos_retenidos: v.impuestos_retenidos.map((i) => ({ ...i, base_ret: precio })),
    plataformas_tecnologicas: {
      periodicidad: '04',
      servicios: [
        {
          forma_pago_serv: '03',
          tipo_de_serv: '01',
          fecha_serv: '2026-10-05',
          precio_serv_sin_iva: precio,
          impuestos_trasladados: { tasa_cuota: '0.16' },
          comision_del_servicio: { base: precio, porcentaje: '0.1' },
        },
      ],
    },
  };
};

/** The OpenAPI example of POST /retenciones/batch: a platform's October for two of its sellers. */
export const RetencionBatchExamples = {
  retencion_batch_plataformas: {
    summary: "A platform's month: one Plataformas Tecnológicas retención per seller, each with its own idempotency_key",
    value: {
      items: [
        { idempotency_key: 'seller-FUNK671228PH6-2026-10', ...plataformasFor('FUNK671228PH6', 'KARLA FUENTE NOLASCO', 'FUNK671228MCLNLR05', '10000') },
        { idempotency_key: 'seller-XIQB891116QE4-2026-10', ...plataformasFor('XIQB891116QE4', 'BERENICE XIMO QUEZADA', 'XIQB891116MGRMZR05', '2500') },
      ],
    },
  },
} satisfies BodyExamples<z.input<typeof RetencionBatchRequestSchema>>;

/** POST /retenciones/{id}/cancel: motivo 02 needs no replacement; 01 names the retención that replaces it. */
export const RetencionCancelExamples: BodyExamples<RetencionCancelBody> = {
  errores_sin_relacion: { summary: 'Issued with errors, no replacement (motivo 02)', value: { motivo: '02' } },
  sustituida: {
    summary: 'Replaced by another retención (motivo 01)',
    description: 'folio_sustitucion: the UUID of a vigente retención issued with cfdi_reten_relacionados { tipo_relacion: "04", uuid: <this one> }',
    value: { motivo: '01', folio_sustitucion: '6F35D3B5-3651-5370-BC2C-14CDBE384CD7' },
  },
};

/** POST /retenciones/{id}/email: the receptor's addresses (a retención has no client record to default to). */
export const RetencionEmailExamples: BodyExamples<RetencionEmailRequest> = {
  receptor: { summary: "To the receptor's addresses", value: { to: ['karla.fuente@example.com'] } },
};

/** POST /retenciones' 202 (live mode): retencion_arrendamiento sealed and queued for a live PAC, not stamped yet. */
export const RetencionQueuedExample: z.output<typeof RetencionSchema> = {
  id: 'ret_01kb2m3k4n5p6q7r8s9t0v1w2x',
  uuid: null,
  status: 'en_cola',
  serie: 'A',
  folio: 15,
  folio_int: 'A15',
  fecha_exp: '2026-11-30T10:00:00',
  cve_retenc: '05',
  emisor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601' },
  receptor: KARLA,
  periodo: { mes_ini: '11', mes_fin: '11', ejercicio: '2026' },
  totales: { monto_tot_operacion: 20000, monto_tot_grav: 20000, monto_tot_exent: 0, monto_tot_ret: 4133.34 },
  impuestos_retenidos: [
    { impuesto_ret: '001', base_ret: 20000, monto_ret: 2000, tipo_pago_ret: '04' },
    { impuesto_ret: '002', base_ret: 20000, monto_ret: 2133.34, tipo_pago_ret: '01' },
  ],
  complementos: [],
  fecha_timbrado: null,
  pac: null,
  failure_reason: null,
  sello_sat: null,
  certificado_sat: null,
  cadena_original_sat: null,
  cancelacion: null,
  created_at: '2026-11-30T16:00:00.000Z',
};
