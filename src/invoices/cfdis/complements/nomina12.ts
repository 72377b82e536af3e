import { z } from '@hono/zod-openapi';
import type { NominaInput } from '../../../cfdi/complements/nomina12/input.ts';
import { T_CURP } from '../../../cfdi/patterns.ts';
import { Amount, code, type Fits, integer, num, Rfc, str } from '../fields.ts';
import type { WireComplement } from './index.ts';

/**
 * The `nomina` member of POST /cfdis (tipo N): the Nómina 1.2 complement in snake_case. Only format checks live
 * here (nomina12.xsd patterns, lengths, enums); catalog and arithmetic rules are in src/cfdi/complements/nomina12/rules.ts, where each
 * carries its NOM rule code. Totals and Antigüedad are computed, never sent.
 */

/** t_ImporteMXN: money in MXN with at most 2 decimals (rejected, not rounded: a payslip amount is never altered). */
const Money = Amount.refine((v) => !/\.\d{3}/.test(v), 'must have at most 2 decimals').openapi({ type: ['number', 'string'], example: '1500.00' });

/** xs:date restricted by t_Fecha; the refine rejects days that do not exist (2025-02-30). */
const FECHA = /^(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const Fecha = z
  .string()
  .regex(FECHA, 'must be a date YYYY-MM-DD')
  .refine((s) => {
    if (!FECHA.test(s)) return true; // reported once, by the pattern
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
  }, 'is not a calendar date')
  .openapi({ example: '2026-04-30' });

const int = (min: number, max: number, example: number) => integer(min, max).openapi({ example });

const Curp = z.string().trim().toUpperCase().regex(T_CURP, 'must be an 18-character CURP').openapi({ example: 'PEGJ800101HJCRRN09' });

const Percepcion = z
  .object({
    tipo_percepcion: code(/^\d{3}$/, 'must be a 3-digit c_TipoPercepcion key', '001'),
    clave: str(15, 3).openapi({ example: 'P001', description: "The employer's own concept key" }),
    concepto: str(100).openapi({ example: 'Sueldo' }),
    importe_gravado: Money,
    importe_exento: Money,
    horas_extra: z
      .array(
        z
          .object({
            dias: int(1, 2_147_483_647, 2),
            tipo_horas: code(/^\d{2}$/, 'must be a 2-digit c_TipoHoras key', '01'),
            horas_extra: int(1, 2_147_483_647, 4),
            importe_pagado: Money,
          })
          .strict(),
      )
      .min(1)
      .optional()
      .openapi({ description: 'Required with tipo_percepcion 019 (horas extra)' }),
    acciones_o_titulos: z
      .object({
        valor_mercado: Amount.refine((v) => Number(v) > 0, 'must be greater than 0'),
        precio_al_otorgarse: Amount.refine((v) => Number(v) > 0, 'must be greater than 0'),
      })
      .strict()
      .optional()
      .openapi({ description: 'Required with tipo_percepcion 045' }),
  })
  .strict();

export const NominaRequestSchema = z
  .object({
    tipo_nomina: z.enum(['O', 'E'], { message: 'must be O (ordinaria) or E (extraordinaria)' }),
    fecha_pago: Fecha,
    fecha_inicial_pago: Fecha,
    fecha_final_pago: Fecha,
    num_dias_pagados: Amount.refine((v) => !/\.\d{4}/.test(v), 'must have at most 3 decimals')
      .refine((v) => Number(v) <= 36160, 'must be at most 36160')
      .openapi({ type: ['number', 'string'], example: '15' }),
    emisor: z
      .object({
        registro_patronal: str(20).optional().openapi({ example: 'B5510768108' }),
        curp: Curp.optional().openapi({ description: 'Required when the issuer is a persona física (13-character RFC); forbidden otherwise' }),
        rfc_patron_origen: Rfc.optional(),
        entidad_sncf: z
          .object({
            origen_recurso: code(/^[A-Z]{2}$/, 'must be a c_OrigenRecurso key (IP, IF, IM)', 'IP'),
            monto_recurso_propio: Money.optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    receptor: z
      .object({
        curp: Curp,
        nss: code(/^\d{1,15}$/, 'must be 1 to 15 digits', '04078873454')
          .optional()
          .openapi({ description: 'NumSeguridadSocial' }),
        fecha_inicio_rel_laboral: Fecha.optional().openapi({ description: 'Antigüedad is computed from it to fecha_final_pago' }),
        tipo_contrato: code(/^\d{2}$/, 'must be a 2-digit c_TipoContrato key', '01'),
        sindicalizado: z.boolean().optional(),
        tipo_jornada: code(/^\d{2}$/, 'must be a 2-digit c_TipoJornada key', '01').optional(),
        tipo_regimen: code(/^\d{2}$/, 'must be a 2-digit c_TipoRegimen key', '02'),
        num_empleado: str(15).openapi({ example: '120' }),
        departamento: str(100).optional(),
        puesto: str(100).optional(),
        riesgo_puesto: code(/^\d{1,2}$/, 'must be a c_RiesgoPuesto key (1–5 or 99)', '1').optional(),
        periodicidad_pago: code(/^\d{2}$/, 'must be a 2-digit c_PeriodicidadPago key', '04'),
        banco: code(/^\d{3}$/, 'must be a 3-digit c_Banco key', '002').optional(),
        cuenta_bancaria: code(/^\d{10,18}$/, 'must be 10 to 18 digits', '1234567890').optional(),
        salario_base_cot_apor: Money.optional(),
        salario_diario_integrado: Money.optional(),
        clave_ent_fed: code(/^[A-Z]{2,3}$/, 'must be a c_Estado key of Mexico', 'JAL'),
        subcontratacion: z
          .array(
            z
              .object({
                rfc_labora: Rfc,
                porcentaje_tiempo: Amount.refine((v) => !/\.\d{4}/.test(v), 'must have at most 3 decimals')
                  .refine((v) => Number(v) > 0 && Number(v) <= 100, 'must be greater than 0 and at most 100')
                  .openapi({ type: ['number', 'string'], example: '100' }),
              })
              .strict(),
          )
          .min(1)
          .optional(),
      })
      .strict(),
    percepciones: z.array(Percepcion).min(1).max(1000).optional(),
    jubilacion_pension_retiro: z
      .object({
        total_una_exhibicion: Money.optional(),
        total_parcialidad: Money.optional(),
        monto_diario: Money.optional(),
        ingreso_acumulable: Money,
        ingreso_no_acumulable: Money,
      })
      .strict()
      .optional()
      .openapi({ description: 'Required with tipo_percepcion 039 or 044' }),
    separacion_indemnizacion: z
      .object({
        total_pagado: Money,
        num_anios_servicio: int(0, 99, 5),
        ultimo_sueldo_mens_ord: Money,
        ingreso_acumulable: Money,
        ingreso_no_acumulable: Money,
      })
      .strict()
      .optional()
      .openapi({ description: 'Required with tipo_percepcion 022, 023 or 025' }),
    deducciones: z
      .array(
        z
          .object({
            tipo_deduccion: code(/^\d{3}$/, 'must be a 3-digit c_TipoDeduccion key', '002'),
            clave: str(15, 3).openapi({ example: 'D002' }),
            concepto: str(100).openapi({ example: 'ISR' }),
            importe: Money,
          })
          .strict(),
      )
      .min(1)
      .max(1000)
      .optional(),
    otros_pagos: z
      .array(
        z
          .object({
            tipo_otro_pago: code(/^\d{3}$/, 'must be a 3-digit c_TipoOtroPago key', '002'),
            clave: str(15, 3).openapi({ example: 'OP002' }),
            concepto: str(100).openapi({ example: 'Subsidio para el empleo' }),
            importe: Money,
            subsidio_causado: Money.optional().openapi({ description: 'Required with tipo_otro_pago 002' }),
            compensacion_saldos_a_favor: z
              .object({ saldo_a_favor: Money, anio: int(2016, 32767, 2025), remanente_sal_fav: Money })
              .strict()
              .optional()
              .openapi({ description: 'Required with tipo_otro_pago 004' }),
          })
          .strict(),
      )
      .min(1)
      .max(1000)
      .optional(),
    incapacidades: z
      .array(
        z
          .object({
            dias_incapacidad: int(1, 2_147_483_647, 3),
            tipo_incapacidad: code(/^\d{2}$/, 'must be a 2-digit c_TipoIncapacidad key', '02'),
            importe_monetario: Money.optional(),
          })
          .strict(),
      )
      .min(1)
      .max(1000)
      .optional(),
  })
  .strict()
  .openapi('Nomina', { description: 'Complemento Nómina 1.2 (tipo N). Totals and Antigüedad are computed.' });

export type NominaRequest = Fits<z.output<typeof NominaRequestSchema>, NominaInput>;

const NominaResponse = z
  .object({ total_percepciones: z.number().optional(), total_deducciones: z.number().optional(), total_otros_pagos: z.number().optional() })
  .optional()
  .openapi({ description: 'Nómina (N): the receipt totals' });

export const nomina12 = {
  request: NominaRequestSchema.optional().openapi({ description: 'Nómina (N) only: the payroll receipt (Complemento de Nómina 1.2)' }),
  carriedBy: ({ tipo }, sent) =>
    tipo === 'N' && !sent
      ? { message: 'is required for tipo N (Complemento de Nómina 1.2)' }
      : tipo !== 'N' && sent
        ? { message: 'is only for tipo N' }
        : undefined,
  response: NominaResponse,
  toWire: (nomina) => ({
    total_percepciones: num(nomina.total_percepciones),
    total_deducciones: num(nomina.total_deducciones),
    total_otros_pagos: num(nomina.total_otros_pagos),
  }),
} satisfies WireComplement<'nomina', typeof NominaResponse>;
