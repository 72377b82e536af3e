import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { MOTIVOS } from '../../cfdi/cancellation.ts';
import { UUID } from '../../cfdi/patterns.ts';
import { CANCELLATION_STATUSES, CFDI_STATUSES } from '../../db/schema/index.ts';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, jsonBody, jsonResponse } from '../../lib/schemas.ts';
import { CANCEL_SCENARIOS } from '../../pac/types.ts';
import { CFDI_REF_PATTERN } from '../cfdis/schemas.ts';
import { sandboxScenarioOf } from '../scenario.ts';
import { withdrawCfdi } from '../cfdis/withdrawal.ts';
import { getSatStatus } from './sat-status.ts';
import { cancelCfdi, getCancellation, resumeCancel, getCancellationDocument, type CancellationDeps } from './service.ts';
import { CancelExamples } from './examples.ts';

const errors = errorResponses('invoices');

const tags = ['CFDIs'];

const CfdiRefParams = z.object({
  id: z
    .string()
    .regex(CFDI_REF_PATTERN, 'must be a cfdi_ id or a UUID')
    .openapi({ param: { name: 'id', in: 'path' }, example: 'cfdi_01jd2m3k4n5p6q7r8s9t0v1w2x', description: 'The cfdi_ id or the folio fiscal (UUID, any case)' }),
});

const CancelBodySchema = z
  .object({
    motivo: z.enum(MOTIVOS, { message: 'must be one of 01, 02, 03, 04 (c_MotivoCancelacion)' }).openapi({
      description: '01 errors with a replacement (needs folio_sustitucion), 02 errors without one, 03 the operation did not happen, 04 nominative operation in a global invoice',
    }),
    folio_sustitucion: z.string().regex(UUID, 'must be a UUID').optional().openapi({
      description: 'Motivo 01 only: the UUID of the vigente CFDI of this tenant that replaces this one (issued with cfdi_relacionados tipo_relacion 04 to it)',
    }),
  })
  .strict()
  .openapi('CancelRequest');

const CancellationSchema = z
  .object({
    id: z.string().openapi({ example: 'can_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    cfdi_id: z.string(),
    uuid: z.string(),
    status: z.enum(CANCELLATION_STATUSES).openapi({ description: 'en_proceso (waiting for SAT or the receiver), cancelado, rechazado (the receiver said no), fallido (the request failed)' }),
    cfdi_status: z.enum(CFDI_STATUSES),
    motivo: z.enum(MOTIVOS),
    folio_sustitucion: z.string().nullable(),
    requiere_aceptacion: z.boolean().openapi({ description: 'Whether the rules (RMF 2.7.1.35) make the receiver accept: 3 business days, silence accepts' }),
    estado_sat: z.string().nullable().openapi({ description: 'SAT Estado as last reported (Vigente, Cancelado)' }),
    estatus_cancelacion: z.string().nullable().openapi({ description: 'SAT EstatusCancelacion as last reported (En proceso, Cancelado sin aceptación, Cancelado con aceptación, Plazo vencido, Solicitud rechazada)' }),
    motivo_rechazo: z.string().nullable().openapi({ description: 'Why it was rejected or failed' }),
    requested_at: z.string().openapi({ format: 'date-time' }),
    resolved_at: z.string().nullable().openapi({ format: 'date-time' }),
    request_xml_url: z.string().openapi({ description: 'The signed cancellation request (XML-DSig with the issuer\'s CSD)' }),
    acuse_xml_url: z.string().nullable().openapi({ description: 'SAT\'s acknowledgement (acuse), once the PAC returned it' }),
    historial: z.array(z.object({ from: z.string(), to: z.string(), reason: z.string(), at: z.string() })).openapi({ description: 'Every status move of the CFDI after stamping, oldest first' }),
  })
  .openapi('Cancellation');

const SatStatusSchema = z
  .object({
    uuid: z.string(),
    consulted_at: z.string().openapi({ format: 'date-time' }),
    CodigoEstatus: z.string().openapi({ example: 'S - Comprobante obtenido satisfactoriamente.' }),
    Estado: z.string().openapi({ description: 'Vigente, Cancelado or No Encontrado' }),
    EsCancelable: z.string().openapi({ description: 'No cancelable, Cancelable sin aceptación or Cancelable con aceptación' }),
    EstatusCancelacion: z.string().openapi({ description: 'Empty, En proceso, Plazo vencido, Cancelado con aceptación, Cancelado sin aceptación or Solicitud rechazada' }),
    ValidacionEFOS: z.string().openapi({ description: '200/201: the issuer is not in the EFOS list; 100: it is' }),
  })
  .openapi('SatStatus');

const xmlResponse = (description: string) => ({ description, content: { 'application/xml': { schema: z.string().openapi({ format: 'binary' }) } } });
const common = { 400: errorResponse('Not a cfdi_ id or UUID'), ...errors.unauthenticated, 404: errorResponse('No such CFDI in this tenant and environment, or nothing of that kind yet') };

export function mountCancellationRoutes(app: OpenAPIHono<BackendEnv>, deps: CancellationDeps) {
  app.openapi(
    createRoute({
      method: 'post', path: '/api/v1/cfdis/{id}/cancel', tags, operationId: 'cancelCfdi', summary: 'Cancel a stamped CFDI with SAT',
      description:
        'Signs a cancellation request with the tenant\'s active CSD (XML-DSig) and sends it through the PAC. The CFDI moves ' +
        'vigente → cancelacion_pendiente → cancelado, or back to vigente when the receiver rejects or the request fails; each move is kept ' +
        '(GET /cfdis/{id}/cancellation) and `cfdi.cancelado` is emitted when it becomes cancelado. 200: cancelled now. 202: waiting for the ' +
        'receiver (needed for invoices over $1,000 MXN to a named receiver after the business day following stamping, except nómina, egresos, ' +
        'traslados, RIF, público en general and foreign receivers); it is polled every CANCELLATION_POLL_SECONDS. Refused (409): queued, failed, ' +
        'already cancelled or pending, a vigente CFDI relates to it (No cancelable), past the deadline (31 March / 30 April of the next year), no ' +
        'usable CSD. Send `Idempotency-Key` to make a retry safe. In test mode `X-Sandbox-Scenario` chooses the simulated receiver: ' +
        '`cancel_pending_accept` (accepted at the next poll), `cancel_rejected` (rejected at the next poll: back to vigente), `cancel_expired` ' +
        '(no answer: cancelled as Plazo vencido at the second poll); without it the sandbox cancels at once.',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: {
        params: CfdiRefParams,
        body: jsonBody(CancelBodySchema, CancelExamples),
        headers: z.object({
          'x-sandbox-scenario': z.string().optional().openapi({ enum: [...CANCEL_SCENARIOS], description: 'Test mode only: forces the cancellation outcome (ignored in live mode)' }),
          'idempotency-key': z.string().optional().openapi({ description: 'Replays the first response for 24 h' }),
        }),
      },
      responses: {
        200: jsonResponse(CancellationSchema, 'Cancelled'),
        202: jsonResponse(CancellationSchema, 'Requested; waiting for the receiver (poll GET /cfdis/{id}/cancellation or listen for cfdi.cancelado)'),
        400: errorResponse('Invalid motivo or folio_sustitucion (the details name the field)'),
        ...errors.unauthenticated,
        ...errors.adminOrOperator,
        404: errorResponse('No such CFDI in this tenant and environment'),
        409: errorResponse('The CFDI cannot be cancelled now (see the message), or Idempotency-Key reused with another body'),
        422: errorResponse('Rejected by the PAC or SAT; the CFDI stays vigente'),
        503: errorResponse('The PAC is unavailable (the CFDI stays vigente; retry) or none is configured for live'),
      },
    }),
    async (c) => {
      const scenario = sandboxScenarioOf(c, CANCEL_SCENARIOS);
      const claim = c.get('idempotency');
      const result =
        (claim?.resumed && await resumeCancel(deps, actorOf(c), claim.resumed)) ||
        (await cancelCfdi(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json'), { scenario, bindIdempotency: claim?.bind }));
      return result.pending ? c.json(result.body, 202) : c.json(result.body, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/cfdis/{id}/cancellation', tags, operationId: 'getCfdiCancellation', summary: 'The latest cancellation request of a CFDI',
      request: { params: CfdiRefParams },
      responses: { 200: jsonResponse(CancellationSchema, 'Status, motivo, times, links to the signed request and the acuse, status history'), ...common },
    }),
    async (c) => c.json(await getCancellation(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  for (const which of ['request', 'acuse'] as const) {
    app.openapi(
      createRoute({
        method: 'get', path: `/api/v1/cfdis/{id}/cancellation/${which}.xml`, tags,
        operationId: which === 'request' ? 'downloadCancellationRequest' : 'downloadCancellationAcuse',
        summary: which === 'request' ? 'The signed cancellation request, byte for byte' : 'SAT\'s acknowledgement (acuse) of the cancellation, byte for byte',
        request: { params: CfdiRefParams },
        responses: { 200: xmlResponse(which === 'request' ? 'Cancelacion signed with the CSD' : 'The acuse'), ...common },
      }),
      async (c) => {
        const { uuid, xml } = await getCancellationDocument(deps, actorOf(c), c.req.valid('param').id, which);
        return c.body(new Uint8Array(xml), 200, { 'Content-Type': 'application/xml', 'Content-Disposition': `attachment; filename=${uuid}-${which === 'request' ? 'cancelacion' : 'acuse'}.xml` });
      },
    );
  }

  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/cfdis/{id}/sat-status', tags, operationId: 'getCfdiSatStatus', summary: 'SAT\'s status of a stamped CFDI',
      description:
        'SAT\'s consultation service (ConsultaCFDIService) for the CFDI\'s QR expression, in SAT\'s own words. In test mode the sandbox simulates ' +
        'it from what it stamped and the cancellations it received. Read-only: it does not change the CFDI.',
      request: { params: CfdiRefParams },
      responses: {
        200: jsonResponse(SatStatusSchema, 'SAT\'s answer'),
        ...common,
        503: errorResponse('SAT\'s service did not answer (retry), or no PAC configuration for live'),
      },
    }),
    async (c) => c.json(await getSatStatus(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post', path: '/api/v1/cfdis/{id}/withdraw', tags, operationId: 'withdrawCfdi', summary: 'Withdraw a queued CFDI before it is stamped',
      description:
        'A CFDI still en_cola (the PAC was unavailable) is not stamped any more: it becomes fallido with reason "withdrawn" and `cfdi.fallido` ' +
        'is emitted; its folio stays used. Refused (409) while a stamping attempt is running; if an attempt already in flight still stamps it, it ' +
        'is recorded as vigente (SAT has it) and must be cancelled.',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: { params: CfdiRefParams },
      responses: {
        200: jsonResponse(z.object({ id: z.string(), status: z.literal('fallido'), withdrawn_at: z.string() }).openapi('Withdrawn'), 'Withdrawn'),
        ...common,
        ...errors.adminOrOperator,
        409: errorResponse('Not queued, or a stamping attempt is running'),
      },
    }),
    async (c) => c.json(await withdrawCfdi(deps, actorOf(c), c.req.valid('param').id), 200),
  );
}
