import { z } from '@hono/zod-openapi';
import { PaginationQuery } from '../lib/schemas.ts';
import { CATALOGS, SEARCH_CANDIDATES } from './service.ts';

const names = Object.keys(CATALOGS) as [string, ...string[]];
export const Catalogo = z.enum(names, { message: `must be one of ${names.join(', ')}` }).openapi({
  param: { name: 'catalogo', in: 'path' },
  description: Object.entries(CATALOGS)
    .map(([k, v]) => `\`${k}\`: ${v.title}`)
    .join('; '),
  example: 'productos-servicios',
});

export const Entry = z
  .object({
    clave: z.string(),
    descripcion: z.string(),
    vigencia: z.object({ desde: z.string().nullable(), hasta: z.string().nullable() }),
  })
  .catchall(z.unknown())
  .openapi('CatalogEntry', {
    description:
      'A catalog key with its description and validity; each catalog adds its own columns (persona_fisica, decimales, estado, peligroso, …), ' +
      'listed with the catalog names under `catalogo`',
  });

export const ListQuery = PaginationQuery.extend({
  q: z
    .string()
    .max(100, 'must be at most 100 characters')
    .optional()
    .openapi({
      description:
        'Search. Digits: keys starting with them. Words: products/services (both catalogs), units, hazardous materials and tariff fractions ' +
        'by full text, every word required, accents ignored ' +
        '("credito" finds "Crédito"); a word of two or more characters matches as a prefix ("torn" finds "Tornillos"), a one-character word ' +
        `only as a whole word ("vitamina c", "rayos x"). At most the ${SEARCH_CANDIDATES} best matches are returned (by relevance, a class whose own name matches ` +
        'first); refine the words to reach others. Other catalogs: by key, description or name',
      example: 'tornillo',
    }),
});

export const ColoniasQuery = z.object({
  codigo_postal: z
    .string({ message: 'is required: a 5-digit postal code' })
    .regex(/^\d{5}$/, 'must be a 5-digit postal code')
    .openapi({ param: { name: 'codigo_postal', in: 'query' }, example: '64000', description: 'A c_CodigoPostal key' }),
});

export const Colonias = z
  .object({
    codigo_postal: z.string().openapi({ example: '64000' }),
    estado: z.string().openapi({ example: 'NLE', description: 'c_Estado key of the postal code' }),
    municipio: z.string().optional().openapi({ example: '039', description: 'c_Municipio key of the postal code' }),
    data: z.array(
      z.object({
        clave: z.string().openapi({ example: '0001', description: 'The c_Colonia key to send as colonia' }),
        nombre: z.string().openapi({ example: 'Monterrey Centro' }),
      }),
    ),
  })
  .openapi('Colonias');
