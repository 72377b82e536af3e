import { z } from '@hono/zod-openapi';
import { SITUACIONES_69B } from '../../cfdi/received/lista-69b.ts';
import { ENVIRONMENTS } from '../../db/schema/index.ts';

/** Largest list accepted in a request: the gateway's body limit (SAT's full list is larger: SAT_69B_URL loads that one). */
export const Lista69bUploadSchema = z
  .object({
    file: z
      .instanceof(File, { message: 'must be a file (multipart field "file")' })
      .openapi({ type: 'string', format: 'binary', description: "SAT's Lista 69-B CSV (windows-1250 or UTF-8)" }),
  })
  .openapi('Lista69bUpload');

const Counts = z
  .object({
    presunto: z.number().int(),
    definitivo: z.number().int(),
    desvirtuado: z.number().int(),
    sentencia_favorable: z.number().int(),
  })
  .openapi('Lista69bCounts');

const ListSummary = z
  .object({
    list_date: z.string().nullable().openapi({ description: 'The date the list says it was updated (YYYY-MM-DD)', example: '2025-09-30' }),
    loaded_at: z.string().openapi({ format: 'date-time' }),
    entries: z.number().int().openapi({ example: 11832 }),
    counts: Counts,
  })
  .openapi('Lista69bSummary');

export const Lista69bStatusSchema = z
  .object({
    environment: z.enum(ENVIRONMENTS),
    published: ListSummary.nullable().openapi({
      description: "Live mode: SAT's published list, loaded daily from SAT_69B_URL and shared by every tenant; null before the first load (and in test mode)",
    }),
    sandbox: z
      .array(z.object({ rfc: z.string(), situacion: z.enum(SITUACIONES_69B) }))
      .nullable()
      .openapi({ description: "Test mode: the sandbox simulator's list (EFO900101AB1 is always definitivo); null in live mode" }),
    own: ListSummary.nullable().openapi({
      description: 'The list this tenant uploaded in this environment (only it sees it); its entries win over the published or sandbox ones for the same RFC',
    }),
  })
  .openapi('Lista69bStatus');

export const Lista69bUploadedSchema = Lista69bStatusSchema.extend({
  problems: z
    .array(z.object({ line: z.number().int(), issue: z.string() }))
    .openapi({ description: 'Up to 20 lines that are not a taxpayer (they were skipped; the rest was loaded)' }),
}).openapi('Lista69bUploaded');
