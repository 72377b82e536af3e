import { z } from '@hono/zod-openapi';
import { code, str } from '../fields.ts';

/**
 * The `hidrocarburos_petroliferos` member of each concepto of POST /cfdis: Complemento concepto Hidrocarburos y
 * Petrolíferos 1.0 in snake_case (Facturapi's names). Only the format is checked here; the catalogs, the permit
 * number's length and when it is required are in src/cfdi/complements/hidrocarburospetroliferos10/rules.ts. SAT
 * publishes no error matrix for it: no check carries a rule code. WIRE_CONCEPTO_COMPLEMENTS' type checks it against
 * the engine's HidrocarburosPetroliferosInput.
 */
const HidrocarburosPetroliferos = z
  .object({
    tipo_permiso: str(5).openapi({ example: 'PER07', description: 'c_TipoPermiso (PER01 to PER11)' }),
    numero_permiso: str(35).openapi({
      example: 'PL/23456/EXP/ES/2024',
      description: 'The permit number as the energy regulator wrote it: 15 to 35 characters, blanks collapsed',
    }),
    clave_hyp: code(/^\d{8}$/, 'must be an 8-digit c_ClaveHYP key', '15101505')
      .optional()
      .openapi({ description: "c_ClaveHYP: the concepto's clave_prod_serv (15101505, 15101514, 15101515), its default" }),
    sub_producto_hyp: str(4).openapi({ example: 'SP18', description: 'c_SubProductoHYP' }),
  })
  .strict()
  .openapi('HidrocarburosPetroliferos', {
    description:
      'Complemento concepto Hidrocarburos y Petrolíferos 1.0: required on a concepto of an Ingreso whose clave_prod_serv is diesel (15101505) or ' +
      'gasoline (15101514, 15101515), RMF 2026 rule 2.7.1.48; refused on any other key (docs/hidrocarburos-petroliferos.md)',
  });

const HidrocarburosPetroliferosResponse = z
  .object({ tipo_permiso: z.string(), numero_permiso: z.string(), clave_hyp: z.string(), sub_producto_hyp: z.string() })
  .optional()
  .openapi({ description: 'Hidrocarburos y Petrolíferos 1.0 of this concepto: the permit and the keys written' });

export const hidrocarburospetroliferos10 = {
  request: HidrocarburosPetroliferos.optional(),
  response: HidrocarburosPetroliferosResponse,
  toWire: (s: z.output<typeof HidrocarburosPetroliferosResponse> & object) => ({ ...s }),
};
