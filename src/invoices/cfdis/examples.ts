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
} satisfies BodyExamples<z.input<typeof CfdiRequestSchema>>;
