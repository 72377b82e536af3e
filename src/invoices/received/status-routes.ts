import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, jsonResponse } from '../../lib/schemas.ts';
import { refreshReceivedStatus, type ReceivedStatusDeps } from './status.ts';

const errors = errorResponses('invoices');

const ReceivedStatusSchema = z
  .object({
    id: z.string().openapi({ example: 'rcv_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    uuid: z.string().nullable(),
    sat_status: z.enum(['vigente', 'cancelado', 'no_encontrado']).nullable().openapi({ description: "ConsultaCFDIService's Estado" }),
    es_cancelable: z.string().nullable().openapi({ example: 'Cancelable con aceptación' }),
    estatus_cancelacion: z.string().nullable().openapi({ description: '"En proceso" while the issuer asks to cancel it and the tenant has not answered' }),
    validacion_efos: z.string().nullable().openapi({ description: 'SAT: 200 the issuer is not on the EFOS list, 100 it is', example: '200' }),
    efos_69b: z
      .enum(['presunto', 'definitivo', 'desvirtuado', 'sentencia_favorable'])
      .nullable()
      .openapi({ description: "The issuer's situación on the tenant's Lista 69-B" }),
    sat_checked_at: z.string().nullable().openapi({ format: 'date-time' }),
  })
  .openapi('ReceivedCfdiStatus');

export function mountReceivedStatusRoutes(app: OpenAPIHono<BackendEnv>, deps: { receivedStatus: ReceivedStatusDeps }) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/received-cfdis/{id}/refresh',
      tags: ['Received CFDI'],
      operationId: 'refreshReceivedCfdi',
      summary: "Ask SAT now for a received CFDI's status (OPERATOR or ADMIN)",
      description:
        "ConsultaCFDIService (SAT_CONSULTA_URL; with a test credential the sandbox's simulated SAT): Estado, EsCancelable, " +
        'EstatusCancelacion and ValidacionEFOS are stored with the time of the check. A change raises its event and webhooks: ' +
        '`received_cfdi.cancelled` (now cancelado), `received_cfdi.cancellation_requested` (estatus de cancelación now "En proceso"), ' +
        '`received_cfdi.efos_listed` (ValidacionEFOS now 100, or the Lista 69-B flag presunto/definitivo). The service also refreshes ' +
        'received CFDI not checked for a day, a few each minute. 503 when SAT does not answer (nothing is stored); 409 for a document without a UUID.',
      middleware: [requireRole('ADMIN', 'OPERATOR')] as const,
      request: {
        params: z.object({
          id: z
            .string()
            .max(64)
            .openapi({ param: { name: 'id', in: 'path' }, example: 'rcv_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
        }),
      },
      responses: {
        200: jsonResponse(ReceivedStatusSchema, 'Refreshed: what SAT answered'),
        404: errorResponse('No received CFDI with that id in this tenant and environment'),
        409: errorResponse('The document has no UUID'),
        503: errorResponse("SAT's status service did not answer; Retry-After says when to try again"),
        ...errors.unauthenticated,
        ...errors.adminOrOperator,
      },
    }),
    async (c) => {
      const actor = actorOf(c);
      return c.json(
        await refreshReceivedStatus(deps.receivedStatus, { tenantId: actor.tenantId, environment: actor.environment }, c.req.valid('param').id),
        200,
      );
    },
  );
}
