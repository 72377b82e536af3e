import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, idParam, jsonBody, jsonResponse, paginated } from '../../lib/schemas.ts';
import { SatDownloadCreateExamples, SatDownloadSyncExamples } from './examples.ts';
import {
  SatDownloadCreatedSchema,
  SatDownloadCreateSchema,
  SatDownloadListQuery,
  SatDownloadSchema,
  SatDownloadSyncSchema,
  SatDownloadSyncUpdateSchema,
} from './schemas.ts';
import { getSatDownload, listSatDownloads, requestSatDownload, type SatDownloadRequestDeps } from './service.ts';
import { getSatDownloadSync, putSatDownloadSync, SYNC_SETTLE_DAYS } from './sync.ts';

const errors = errorResponses('invoices');
const tags = ['SAT downloads'];
const Params = idParam('satdl');

export function mountSatDownloadRoutes(app: OpenAPIHono<BackendEnv>, deps: SatDownloadRequestDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/sat-downloads',
      tags,
      operationId: 'createSatDownload',
      summary: "Ask SAT's Descarga Masiva for the CFDI or metadata of a period (ADMIN, OPERATOR)",
      description:
        "Checked first with Descarga Masiva v1.5's rules (400 naming the field, the rule in the detail): desde strictly before hasta, not before " +
        'six years ago, one counterparty RFC, tipo in c_TipoDeComprobante; a received XML request asks only vigentes (SAT refuses the XML of ' +
        "cancelled CFDI since v1.5; metadata lists them). Then recorded and sent in the background, signed with the tenant's FIEL (409 when it has " +
        'none: PUT /fiel); SAT is asked for progress every SAT_DOWNLOAD_POLL_SECONDS, the packages are downloaded once, kept, unpacked: XML into the ' +
        'received CFDI, metadata rows kept. SAT accepts a period at most twice, ever (5002): a second request is allowed only when the first gave no ' +
        "packages, a third is a 409 and never sent. Test mode (sk_test_) never calls SAT: a simulator answers from the sandbox's own test CFDI. " +
        '202 with one record per SAT request.',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: { body: jsonBody(SatDownloadCreateSchema, SatDownloadCreateExamples) },
      responses: {
        202: jsonResponse(SatDownloadCreatedSchema, 'Recorded; sent to SAT in the background'),
        400: errorResponse('A Descarga Masiva v1.5 rule broken (details name the field and the rule)'),
        409: errorResponse('The tenant has no FIEL (PUT /fiel) or it expired, or the period was requested twice already (SAT 5002) or is pending'),
        ...errors.unauthenticated,
        ...errors.adminOrOperator,
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      if (claim?.resumed) return c.json({ data: [await getSatDownload(deps, actorOf(c), claim.resumed)] }, 202);
      const audit = c.get('auditIn');
      return c.json(
        await requestSatDownload(deps, actorOf(c), c.req.valid('json'), { audit: async (tx, id) => audit?.(tx, id, 202), bindIdempotency: claim?.bind }),
        202,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/sat-downloads',
      tags,
      operationId: 'listSatDownloads',
      summary: 'The SAT download requests of the environment, oldest first',
      request: { query: SatDownloadListQuery },
      responses: { 200: jsonResponse(paginated(SatDownloadSchema).openapi('SatDownloadList'), 'One page'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await listSatDownloads(deps, actorOf(c), c.req.valid('query')), 200),
  );

  // Before /sat-downloads/{id}: `sync` is no id.
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/sat-downloads/sync',
      tags,
      operationId: 'getSatDownloadSync',
      summary: "The scheduled sync's setting and last run for this environment",
      responses: { 200: jsonResponse(SatDownloadSyncSchema, 'The setting (enabled false when never set)'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await getSatDownloadSync(deps, actorOf(c)), 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/api/v1/sat-downloads/sync',
      tags,
      operationId: 'putSatDownloadSync',
      summary: 'Turn the scheduled Descarga Masiva sync on or off for this environment (ADMIN)',
      description:
        "Opt-in, per environment. Once an hour the service requests, for each day not synced yet, that day's metadata received and issued " +
        `(a day is asked once ${SYNC_SETTLE_DAYS} days have passed after its end: a CFDI may be stamped up to 72 h after its Fecha, and SAT ` +
        'accepts a period twice at most); when a received metadata request has been downloaded and lists a vigente UUID not in the received ' +
        'CFDI, the XML of that period is requested. Its requests are ordinary SAT downloads with `origin: sync` (GET /sat-downloads), under ' +
        'the same rules (5002, 5005). Without a FIEL (or with an expired one) the run skips the tenant and says so in `last_result`. ' +
        'Turned on the first time, it starts with the last settled day; it never backfills (POST /sat-downloads does).',
      middleware: [requireRole('ADMIN')] as const,
      request: { body: jsonBody(SatDownloadSyncUpdateSchema, SatDownloadSyncExamples) },
      responses: { 200: jsonResponse(SatDownloadSyncSchema, 'The setting'), ...errors.invalidInput, ...errors.unauthenticated, ...errors.admin },
    }),
    // The audit row is the middleware's, after the write (resource `sat-downloads`, id `sync`).
    async (c) => c.json(await putSatDownloadSync(deps, actorOf(c), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/sat-downloads/{id}',
      tags,
      operationId: 'getSatDownload',
      summary: "One SAT download request: its status and SAT's codes",
      request: { params: Params },
      responses: { 200: jsonResponse(SatDownloadSchema, 'The request'), 404: errorResponse('No such request in this environment'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await getSatDownload(deps, actorOf(c), c.req.valid('param').id), 200),
  );
}
