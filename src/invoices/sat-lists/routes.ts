import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, jsonResponse } from '../../lib/schemas.ts';
import { invalidInput } from '../../lib/service-error.ts';
import type { Db } from '../../db/client.ts';
import { Lista69bCsvExamples, Lista69bUploadExamples } from './examples.ts';
import { Lista69bStatusSchema, Lista69bUploadedSchema, Lista69bUploadSchema } from './schemas.ts';
import { lista69bStatus, uploadLista69b } from './service.ts';

const errors = errorResponses('invoices');
const tags = ['SAT lists'];

export function mountSatListRoutes(app: OpenAPIHono<BackendEnv>, deps: { db: Db; now: () => Date }) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/sat-lists/69b',
      tags,
      operationId: 'uploadLista69b',
      summary: 'Load a Lista 69-B (artículo 69-B CFF) for this tenant and environment (ADMIN)',
      description:
        "SAT's Listado_Completo_69-B.csv, as a multipart field `file` or as the body with Content-Type text/csv. It becomes this " +
        "tenant's own list in the credential's environment, replacing the one it uploaded before; no other tenant sees it. For an RFC " +
        "on it, its situación wins over the published list (live, loaded daily from SAT_69B_URL) or the sandbox simulator's (test). " +
        'Lines that are not a taxpayer are skipped and named in `problems`; a file with none → 400 naming `file`.',
      middleware: [requireRole('ADMIN')] as const,
      request: {
        body: {
          required: false,
          content: {
            'multipart/form-data': { schema: Lista69bUploadSchema, examples: Lista69bUploadExamples },
            'text/csv': { schema: z.string().openapi({ type: 'string' }), examples: Lista69bCsvExamples },
          },
        },
      },
      responses: {
        200: jsonResponse(Lista69bUploadedSchema, 'Loaded: what the environment now consults'),
        400: errorResponse('No file, or no taxpayer could be read from it'),
        413: errorResponse('The file is larger than the request body limit'),
        ...errors.unauthenticated,
        ...errors.admin,
      },
    }),
    async (c) => {
      const type = c.req.header('content-type') ?? '';
      let bytes: Uint8Array;
      if (/^text\/csv\b/i.test(type)) bytes = new Uint8Array(await c.req.arrayBuffer());
      else {
        const form = c.req.valid('form') as { file?: File };
        if (!form.file)
          throw invalidInput('Invalid input', [
            { field: 'file', issue: 'is required (multipart field "file", or the CSV as the body with Content-Type: text/csv)' },
          ]);
        bytes = new Uint8Array(await form.file.arrayBuffer());
      }
      return c.json(await uploadLista69b(deps, actorOf(c), bytes), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/sat-lists/69b',
      tags,
      operationId: 'getLista69b',
      summary: 'The Lista 69-B this environment consults: its date and counts',
      responses: { 200: jsonResponse(Lista69bStatusSchema, 'The lists'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await lista69bStatus(deps, actorOf(c)), 200),
  );
}
