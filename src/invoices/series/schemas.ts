import { z } from '@hono/zod-openapi';
import type { series } from '../../db/schema/index.ts';
import { text, xmlText } from '../../lib/schemas.ts';
import { integer } from '../cfdis/fields.ts';

/** Highest folio accepted: 15 digits stay exact in a JSON number and well within CFDI's 40-character Folio. */
const MAX_FOLIO = 999_999_999_999_999;

const Serie = xmlText(25)
  // XML whitespace collapse would make the cadena differ from the stored value.
  .refine((s) => !/\s\s/.test(s), 'must not contain consecutive spaces')
  .openapi({ example: 'A', description: 'Serie printed before the folio (1–25 characters, no "|"); unique in the tenant and environment' });
const Folio = integer(1, MAX_FOLIO);
const Descripcion = text(200).openapi({ example: 'Facturas de mostrador' });

export const SeriesCreateSchema = z
  .object({
    serie: Serie,
    folio_inicial: Folio.optional().openapi({ example: 1, description: 'First folio to assign (default 1)' }),
    default: z.boolean().optional().openapi({
      description: 'Make it the series used when an invoice names none. The first series of an environment is always the default.',
    }),
    descripcion: Descripcion.optional(),
  })
  .strict()
  .openapi('SeriesCreate');

export const SeriesPatchSchema = z
  .object({
    folio_inicial: Folio.optional().openapi({ description: 'New next folio: folios only move forward (at least next_folio, else 409)' }),
    default: z.boolean().optional().openapi({
      description:
        'true makes this the default series (the previous default stops being one); false on the default series is 409: make another one the default instead',
    }),
    descripcion: Descripcion.nullable().optional().openapi({ description: 'null clears it' }),
  })
  .strict()
  .openapi('SeriesPatch');

export const SeriesSchema = z
  .object({
    id: z.string().openapi({ example: 'ser_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    serie: z.string(),
    next_folio: z.number().int().openapi({ description: 'Folio the next invoice of this series will get' }),
    default: z.boolean(),
    descripcion: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time', description: 'Last change through this API; assigning folios does not change it' }),
  })
  .openapi('Series');

export type SeriesCreate = z.infer<typeof SeriesCreateSchema>;
export type SeriesPatch = z.infer<typeof SeriesPatchSchema>;
export type SeriesRow = typeof series.$inferSelect;

export const toSeries = (r: SeriesRow): z.infer<typeof SeriesSchema> => ({
  id: r.id,
  serie: r.serie,
  next_folio: r.nextFolio,
  default: r.isDefault,
  descripcion: r.descripcion,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
