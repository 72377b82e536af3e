import { withTextCheck } from '../invoices/cfdis/fields.ts';
import { z } from '@hono/zod-openapi';
import { EXAMPLE_KEY } from './examples.ts';

/** The portal speaks Spanish to the customer: its own input messages are Spanish too. */
const required = 'es obligatorio';

export const TenantParam = z.object({
  tenant_id: z
    .string()
    .max(64, 'debe tener a lo más 64 caracteres')
    .openapi({ param: { name: 'tenant_id', in: 'path' }, example: 'ten_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
});

const Clave = z
  .string()
  .trim()
  .min(1, required)
  .max(64, 'no es una clave de ticket: debe tener a lo más 64 caracteres')
  .openapi({ description: "The ticket's self-invoice key, as printed (case, spaces and dashes do not matter)", example: EXAMPLE_KEY });

export const PageQuery = z.object({
  clave: z
    .string()
    .optional()
    .openapi({ param: { name: 'clave', in: 'query' }, description: 'Prefills the form (the link printed on the ticket)', example: EXAMPLE_KEY }),
});

export const TicketQuery = z.object({ clave: Clave.openapi({ param: { name: 'clave', in: 'query' } }) });

export const DocumentQuery = TicketQuery.extend({
  rfc: z
    .string()
    .trim()
    .min(12, 'debe tener 12 caracteres (persona moral) o 13 (persona física)')
    .max(13, 'debe tener 12 caracteres (persona moral) o 13 (persona física)')
    .openapi({ param: { name: 'rfc', in: 'query' }, description: 'The RFC the CFDI was issued to', example: 'ICV060329BY0' }),
});

const Receptor = z.strictObject({
  rfc: z
    .string()
    .trim()
    .toUpperCase()
    .min(12, 'debe tener 12 caracteres (persona moral) o 13 (persona física)')
    .max(13, 'debe tener 12 caracteres (persona moral) o 13 (persona física)')
    .openapi({ example: 'ICV060329BY0' }),
  nombre: z.string().trim().min(1, required).max(300, 'debe tener a lo más 300 caracteres').openapi({ example: 'INMOBILIARIA CVA' }),
  domicilio_fiscal: z
    .string()
    .trim()
    .regex(/^[0-9]{5}$/, 'debe ser el código postal de 5 dígitos de tu domicilio fiscal')
    .openapi({ example: '33826' }),
  regimen_fiscal: z
    .string()
    .trim()
    .regex(/^[0-9]{3}$/, 'elige tu régimen fiscal (c_RegimenFiscal)')
    .openapi({ example: '601' }),
  uso_cfdi: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z0-9]{3,4}$/, 'elige el uso del CFDI (c_UsoCFDI)')
    .openapi({ example: 'G03' }),
});

// The receptor reaches the XML: the same character check as a CFDI request's (clave and email never do).
export const PortalInvoiceRequestSchema = withTextCheck(
  z.strictObject({
    clave: Clave,
    receptor: Receptor,
    email: z
      .string()
      .trim()
      .toLowerCase()
      .max(254, 'debe tener a lo más 254 caracteres')
      .pipe(z.email('no es un correo electrónico válido'))
      .optional()
      .openapi({ description: 'Where to send the PDF and XML, when the service has SMTP configured (otherwise the invoice is issued and not sent)' }),
  }),
  ['clave', 'email'],
).openapi('PortalInvoiceRequest');

export const PortalTicketSchema = z
  .object({
    folio: z.string().openapi({ example: 'T-000123' }),
    fecha: z.string().openapi({ example: '2025-06-15T13:45:00' }),
    total: z.number().openapi({ example: 116 }),
    conceptos: z.array(z.object({ descripcion: z.string(), cantidad: z.number().openapi({ example: 1 }), importe: z.number().openapi({ example: 100 }) })),
    status: z.enum(['open', 'invoiced', 'cancelled']),
    invoiced_by: z.enum(['self', 'global']).nullable().openapi({ description: 'self: by its customer here; global: in the global invoice' }),
    expires_at: z.string().openapi({ example: '2025-07-15T23:59:59Z' }),
    can_invoice: z.boolean(),
    reason: z.string().optional().openapi({ description: 'Why it cannot be invoiced, in Spanish, for the customer' }),
    deadline: z.string().optional().openapi({
      description: "While it can be invoiced: until when, in Spanish, for the customer (the issuer's local date of expires_at, dd/mm/aaaa)",
      example: 'Puedes facturarlo hasta el 30/11/2026.',
    }),
    can_download: z.boolean().openapi({
      description: 'Invoiced here by its customer: its PDF and XML can be downloaded again (GET …/ticket/pdf and …/ticket/xml, with the RFC it was issued to)',
    }),
  })
  .openapi('PortalTicket');

export const PortalInvoiceSchema = z
  .object({
    id: z.string().openapi({ example: 'cfdi_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    uuid: z.string().nullable().openapi({ description: 'null while the CFDI waits in the stamping queue', example: '5FB2822E-396D-4725-8521-CDC4BDD20CCF' }),
    status: z.string().openapi({ example: 'vigente' }),
    folio: z.string().openapi({ example: 'T-000123' }),
    total: z.number().openapi({ example: 116 }),
    email: z.object({
      status: z.enum(['queued', 'not_requested', 'unavailable']).openapi({
        description:
          'unavailable: the service has no SMTP configured, or the ticket is a test-mode one and the operator captures no test-mode email ' +
          '(EMAIL_TEST_CAPTURE); nothing was sent',
      }),
      to: z.string().optional(),
    }),
  })
  .openapi('PortalInvoice');
