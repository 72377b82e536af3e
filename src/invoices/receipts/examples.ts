import type { z } from '@hono/zod-openapi';
import type { BodyExamples } from '../../lib/schemas.ts';
import type { GlobalInvoiceSchema, ReceiptCreateSchema, ReceiptInvoiceSchema, ReceiptSettingsPatchSchema } from './schemas.ts';

export const ReceiptCreateExamples = {
  ticket: {
    summary: 'A shop ticket: two products with IVA 16 %, paid in cash',
    value: {
      forma_pago: '01',
      conceptos: [
        {
          clave_prod_serv: '50192100',
          cantidad: '2',
          clave_unidad: 'H87',
          descripcion: 'Botana de papas 45 g',
          valor_unitario: '17.24',
          impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
        },
        {
          clave_prod_serv: '50202306',
          cantidad: '1',
          clave_unidad: 'H87',
          descripcion: 'Refresco 600 ml',
          valor_unitario: '15.52',
          impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
        },
      ],
    },
  },
} satisfies BodyExamples<z.input<typeof ReceiptCreateSchema>>;

/** ICV060329BY0 is one of SAT's test taxpayers (persona moral, régimen 601, postal code 33826). */
export const ReceiptInvoiceExamples = {
  customer: {
    summary: 'The customer invoices the ticket (an open receipt: the example creates one first)',
    value: {
      receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' },
    },
  },
  customer_email: {
    summary: 'The same, and the XML and PDF emailed to the customer once stamped (needs SMTP_URL)',
    value: {
      receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' },
      email_to: ['facturas@inmobiliaria-cva.example.com'],
    },
  },
} satisfies BodyExamples<z.input<typeof ReceiptInvoiceSchema>>;

export const GlobalInvoiceExamples = {
  monthly: {
    summary: "The month's global invoice to the general public (by meses and anio)",
    value: { periodicidad: '04', meses: '11', anio: '2026' },
  },
  daily: {
    summary: "One day's global invoice (desde–hasta)",
    value: { periodicidad: '01', desde: '2026-11-24', hasta: '2026-11-24' },
  },
  replacement: {
    summary:
      "A vigente global invoice of that day replaced (SAT's substitution, TipoRelacion 04): then cancel it with motivo 01 and folio_sustitucion = the new UUID",
    value: { periodicidad: '01', desde: '2026-11-24', hasta: '2026-11-24', replaces: 'cfdi_01kbx3mzq8h2v4n6p8r0t2w4y6' },
  },
} satisfies BodyExamples<z.input<typeof GlobalInvoiceSchema>>;

export const ReceiptSettingsExamples = {
  monthly: { summary: 'Issue the global invoice by itself at the end of each month', value: { auto_global_invoice: '04' } },
  off: { summary: 'Never issue it by itself', value: { auto_global_invoice: null } },
} satisfies BodyExamples<z.input<typeof ReceiptSettingsPatchSchema>>;
