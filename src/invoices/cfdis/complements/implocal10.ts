import { z } from '@hono/zod-openapi';
import { Amount, str } from '../fields.ts';
import type { WireComplement } from './index.ts';

/**
 * The `impuestos_locales` member of POST /cfdis (tipo I and E): Impuestos Locales 1.0 in snake_case. Only the
 * format is checked here; rates, bases, amounts (two decimals, implocal.xsd) and the Total are checked in
 * src/cfdi/complements/implocal10/rules.ts. SAT publishes no error matrix for it: no check carries a rule code.
 * WireComplement's `request` type checks it against the engine's ImpuestosLocalesInput.
 */
const Tasa = Amount.openapi({ example: '3', description: 'A percentage, as SAT writes it (3 for 3 %): greater than 0, at most 100, two decimals' });
const Base = Amount.optional().openapi({
  description: "What the rate applies to (not written: implocal has no Base). Default: the CFDI's SubTotal − Descuento; at most that",
});
const Importe = Amount.optional().openapi({
  description: 'Computed (base × tasa ÷ 100, rounded half up to the cent) when omitted; when sent, within half a cent per unit of rate of it',
});

const RetencionLocal = z
  .object({
    imp_loc_retenido: str(100).openapi({ example: 'Impuesto cedular', description: 'ImpLocRetenido: the local tax withheld, by its name' }),
    tasa_de_retencion: Tasa,
    base: Base,
    importe: Importe,
  })
  .strict();

const TrasladoLocal = z
  .object({
    imp_loc_trasladado: str(100).openapi({
      example: 'ISH',
      description: 'ImpLocTrasladado: the local tax charged, by its name (ISH: impuesto sobre hospedaje)',
    }),
    tasa_de_traslado: Tasa,
    base: Base,
    importe: Importe,
  })
  .strict();

const ImpuestosLocalesRequestSchema = z
  .object({
    retenciones: z.array(RetencionLocal).max(100).optional().openapi({ description: 'RetencionesLocales: state or municipal taxes withheld' }),
    traslados: z.array(TrasladoLocal).max(100).optional().openapi({ description: 'TrasladosLocales: state or municipal taxes charged' }),
  })
  .strict()
  .openapi('ImpuestosLocales', {
    description:
      'Complemento de Impuestos Locales 1.0 (tipo I or E). At least one line. TotaldeTraslados and TotaldeRetenciones are computed, and the ' +
      "CFDI's Total includes them: SubTotal − Descuento + traslados − retenciones + local traslados − local retenciones (docs/impuestos-locales.md).",
  });

const ImpuestosLocalesResponse = z
  .object({
    total_de_traslados: z.number(),
    total_de_retenciones: z.number(),
    traslados: z.array(z.object({ imp_loc_trasladado: z.string(), tasa_de_traslado: z.number(), importe: z.number() })),
    retenciones: z.array(z.object({ imp_loc_retenido: z.string(), tasa_de_retencion: z.number(), importe: z.number() })),
  })
  .optional()
  .openapi({ description: "Impuestos Locales 1.0 (I, E): the local taxes, part of the CFDI's total" });

export const implocal10 = {
  request: ImpuestosLocalesRequestSchema.optional().openapi({
    description: 'Ingreso (I) or Egreso (E) only: state and municipal taxes (lodging tax, cedular withholdings), Complemento de Impuestos Locales 1.0',
  }),
  carriedBy: ({ tipo }, sent) => (sent && tipo !== 'I' && tipo !== 'E' ? { message: `is only for tipo I or E, not ${tipo}` } : undefined),
  response: ImpuestosLocalesResponse,
  toWire: (s) => ({
    total_de_traslados: Number(s.total_de_traslados),
    total_de_retenciones: Number(s.total_de_retenciones),
    traslados: s.traslados.map((t) => ({ imp_loc_trasladado: t.imp_loc_trasladado, tasa_de_traslado: Number(t.tasa_de_traslado), importe: Number(t.importe) })),
    retenciones: s.retenciones.map((r) => ({
      imp_loc_retenido: r.imp_loc_retenido,
      tasa_de_retencion: Number(r.tasa_de_retencion),
      importe: Number(r.importe),
    })),
  }),
} satisfies WireComplement<'impuestos_locales', typeof ImpuestosLocalesResponse>;
