import type { z } from '@hono/zod-openapi';
import type { BodyExamples } from '../../lib/schemas.ts';
import type { SeriesCreateSchema, SeriesPatchSchema } from './schemas.ts';

export const SeriesCreateExamples = {
  mostrador: { summary: 'A series for counter sales, from folio 1', value: { serie: 'MOST', folio_inicial: 1, descripcion: 'Facturas de mostrador' } },
} satisfies BodyExamples<z.input<typeof SeriesCreateSchema>>;

export const SeriesPatchExamples = {
  describe: { summary: 'Describe it and make it the default', value: { descripcion: 'Facturas de mostrador, sucursal centro', default: true } },
} satisfies BodyExamples<z.input<typeof SeriesPatchSchema>>;
