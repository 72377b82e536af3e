import { z } from '@hono/zod-openapi';

const Month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be YYYY-MM');
const Importe = z.object({ tipo: z.string(), moneda: z.string(), total: z.number() });
const Counts = z.record(z.string(), z.number().int());

export const StatsSchema = z
  .object({
    environment: z.enum(['test', 'live']),
    cfdis: z.object({
      total: z.number().int(),
      por_status: Counts,
      por_tipo: Counts,
      importes: z.array(Importe).openapi({ description: 'Σ Total of the vigente (and cancelacion_pendiente) CFDIs, per type and currency' }),
      por_mes: z
        .array(z.object({ mes: z.string(), cantidad: z.number().int(), por_tipo: Counts, importes: z.array(Importe) }))
        .openapi({ description: 'By month of Fecha, oldest first' }),
    }),
    retenciones: z
      .object({
        total: z.number().int(),
        por_status: Counts,
        monto_tot_ret: z.number().openapi({ description: 'Σ MontoTotRet (withheld) of the vigente (and cancelacion_pendiente) retenciones, MXN' }),
        monto_tot_operacion: z.number().openapi({ description: 'Σ MontoTotOperacion of the same' }),
        por_mes: z
          .array(z.object({ mes: z.string(), cantidad: z.number().int(), por_status: Counts, monto_tot_ret: z.number(), monto_tot_operacion: z.number() }))
          .openapi({ description: 'By month of FechaExp, oldest first' }),
      })
      .openapi({ description: 'CFDI de Retenciones e información de pagos 2.0 (POST /retenciones), in the same month range on FechaExp' }),
    csds: z.object({ total: z.number().int(), activos: z.number().int(), por_vencer_30_dias: z.number().int() }),
    usuarios: z.object({ total: z.number().int(), por_rol: Counts }),
    api_keys: z.object({ activas: z.number().int() }),
  })
  .openapi('Stats');

export const StatsQuery = z.object({
  desde: Month.optional().openapi({ description: 'First month (YYYY-MM) of Fecha' }),
  hasta: Month.optional().openapi({ description: 'Last month (YYYY-MM)' }),
});
