import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, idParam, jsonResponse, paginated } from '../../lib/schemas.ts';
import { invalidInput } from '../../lib/service-error.ts';
import type { PdfPool } from '../cfdis/pdf-pool.ts';
import { ReceivedFormExamples, ReceivedXmlExamples, ReceivedZipExamples } from './examples.ts';
import type { ReceivedDeps } from './intake.ts';
import { getReceived, getReceivedPdf, getReceivedXml, listReceived } from './reads.ts';
import { IntakeResponseSchema, ReceivedCfdiListItemSchema, ReceivedCfdiSchema, ReceivedListQuery } from './schemas.ts';
import { MAX_FILE_BYTES, MAX_FILES_PER_REQUEST, MAX_ZIP_BYTES, type UploadedPart, uploadReceived } from './service.ts';

const tags = ['Received CFDIs'];
const errors = errorResponses('invoices');
const binary = { type: 'string', format: 'binary' } as const;

/** The parts of an upload by its Content-Type; another type is the 415 that names the three this route takes. */
async function partsOf(c: Context<BackendEnv>): Promise<UploadedPart[]> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/xml' || type === 'text/xml') return [{ name: 'body.xml', bytes: new Uint8Array(await c.req.arrayBuffer()) }];
  if (type === 'application/zip' || type === 'application/x-zip-compressed') return [{ name: 'body.zip', bytes: new Uint8Array(await c.req.arrayBuffer()) }];
  if (type === 'multipart/form-data') {
    let form: FormData;
    try {
      form = await c.req.formData();
    } catch {
      throw invalidInput('Malformed multipart body', [{ field: 'body', issue: 'is not a readable multipart/form-data body' }]);
    }
    const parts: UploadedPart[] = [];
    const files: [string, File][] = [];
    form.forEach((value, field) => {
      if (typeof value === 'string') throw invalidInput('Not a file', [{ field, issue: 'must be a file (a CFDI XML or a ZIP of them), not a text field' }]);
      files.push([field, value]);
    });
    for (const [field, file] of files) parts.push({ name: file.name || field, bytes: new Uint8Array(await file.arrayBuffer()) });
    return parts;
  }
  throw new HTTPException(415, { message: 'Unsupported Media Type' });
}

export function mountReceivedRoutes(app: OpenAPIHono<BackendEnv>, deps: ReceivedDeps & { pdfPool?: PdfPool }) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/received-cfdis',
      tags,
      operationId: 'uploadReceivedCfdis',
      summary: 'Upload CFDIs issued to the tenant: validated, stored, one outcome per document (ADMIN, OPERATOR)',
      description:
        'One XML (`application/xml`), a ZIP of them (`application/zip`), or several files in `multipart/form-data` (any field names, each ' +
        "an XML or a ZIP). Each document is checked as SAT would (well-formed, SAT's XSD with its complements, the cadena original from SAT's " +
        'XSLT, `Sello` with the embedded certificate, that certificate a CSD of `Emisor/Rfc` issued by SAT and valid at `Fecha` in the time zone ' +
        "of `LugarExpedicion`, `NoCertificado` its serial, TFD 1.1 with `SelloCFD` = `Sello` and `SelloSAT` verified with the PAC's SAT " +
        "certificate from SAT's certificate repository, `Receptor/Rfc` the tenant's) and stored with every check. Always **200** with one " +
        "outcome per document in upload order (ZIP entries in the ZIP's order): `created`, `invalid` (stored too, naming the failed checks) " +
        'or `duplicate` (its UUID is stored already for the tenant in this environment; nothing written; reasons say if the bytes differ). ' +
        'A CFDI 3.3 is stored `not_validated` saying why; so is a document whose SAT certificate could not be fetched (the repository ' +
        `unreachable). Limits: ${MAX_FILES_PER_REQUEST} documents per request (ZIP entries counted one by one; more → 413), ${MAX_FILE_BYTES / 1024 / 1024} MiB a ` +
        `document and ${MAX_ZIP_BYTES / 1024 / 1024} MiB a ZIP unpacked (→ 413), the request body 1 MiB (→ 413). Events \`received_cfdi.created\` ` +
        'and `received_cfdi.invalid`. Validation takes about 100 ms a document.',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: {
        body: {
          required: true,
          content: {
            'application/xml': { schema: binary, examples: ReceivedXmlExamples },
            'application/zip': { schema: binary, examples: ReceivedZipExamples },
            'multipart/form-data': { schema: { type: 'object', additionalProperties: binary }, examples: ReceivedFormExamples },
          },
        },
      },
      responses: {
        200: jsonResponse(IntakeResponseSchema, 'One outcome per document'),
        400: errorResponse('No file, a text field in the form, or a ZIP that cannot be read'),
        413: errorResponse('Too many documents, a document or a ZIP too large, or the body over 1 MiB'),
        ...errors.adminOrOperator,
        ...errors.unauthenticated,
      },
    }),
    async (c) => c.json(await uploadReceived(deps, actorOf(c), await partsOf(c)), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/received-cfdis',
      tags,
      operationId: 'listReceivedCfdis',
      summary: 'List received CFDIs, newest first',
      request: { query: ReceivedListQuery },
      responses: { 200: jsonResponse(paginated(ReceivedCfdiListItemSchema), 'A page of received CFDIs'), ...errors.invalidQuery, ...errors.unauthenticated },
    }),
    async (c) => c.json(await listReceived(deps, actorOf(c), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/received-cfdis/{id}',
      tags,
      operationId: 'getReceivedCfdi',
      summary: 'A received CFDI: its facts, every check, its statuses',
      request: { params: idParam('rcv') },
      responses: { 200: jsonResponse(ReceivedCfdiSchema, 'The received CFDI'), 404: errorResponse('No such received CFDI'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await getReceived(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/received-cfdis/{id}/xml',
      tags,
      operationId: 'downloadReceivedCfdiXml',
      summary: 'The document exactly as received, byte for byte',
      request: { params: idParam('rcv') },
      responses: {
        200: { description: 'The bytes as received', content: { 'application/xml': { schema: z.string().openapi({ format: 'binary' }) } } },
        404: errorResponse('No such received CFDI'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => {
      const { id, uuid, xml } = await getReceivedXml(deps, actorOf(c), c.req.valid('param').id);
      return c.body(new Uint8Array(xml), 200, { 'Content-Type': 'application/xml', 'Content-Disposition': `attachment; filename=${uuid ?? id}.xml` });
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/received-cfdis/{id}/pdf',
      tags,
      operationId: 'downloadReceivedCfdiPdf',
      summary: 'A printed representation of a received CFDI 4.0 (PDF)',
      description:
        'Rendered from the stored XML by the same renderer as GET /cfdis/{uuid}/pdf (every value read from the document), without the ' +
        'tenant\'s branding (it is the supplier\'s document); "SIN VALIDEZ FISCAL — SANDBOX" in test mode, the cancelled mark when SAT said ' +
        'cancelado. Not stored: rendered on each request, on the shared PDF workers (429/503 with Retry-After as for issued CFDIs). A document ' +
        'that is not a well-formed CFDI 4.0, or lacks what a CFDI must carry to be printed, has none: 409.',
      request: { params: idParam('rcv') },
      responses: {
        200: { description: 'The PDF', content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } } },
        404: errorResponse('No such received CFDI'),
        409: errorResponse('Not a well-formed CFDI 4.0 that can be printed'),
        429: errorResponse("Too many of this tenant's PDFs are rendering and waiting: retry after Retry-After seconds"),
        503: errorResponse('Too many PDFs are being rendered, or this one took over 60 s: retry after Retry-After seconds'),
        ...errors.unauthenticated,
      },
    }),
    async (c) => {
      const { id, uuid, pdf } = await getReceivedPdf(deps, actorOf(c), c.req.valid('param').id);
      return c.body(pdf as Uint8Array<ArrayBuffer>, 200, {
        'Content-Type': 'application/pdf',
        'Content-Disposition': `attachment; filename=${uuid ?? id}.pdf`,
      });
    },
  );
}
