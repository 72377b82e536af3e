import type { z } from '@hono/zod-openapi';
import type { BodyExamples } from '../../lib/schemas.ts';
import type { ClientCreateSchema, ClientPatchSchema } from './schemas.ts';

/** ICV060329BY0 is one of SAT's test taxpayers (persona moral, régimen 601, postal code 33826). */
export const ClientCreateExamples = {
  moral: {
    summary: 'A persona moral customer',
    value: {
      rfc: 'ICV060329BY0',
      nombre: 'INMOBILIARIA CVA',
      regimen_fiscal: '601',
      domicilio_fiscal: '33826',
      uso_cfdi: 'G03',
      email: 'facturas@example.com',
    },
  },
} satisfies BodyExamples<z.input<typeof ClientCreateSchema>>;

export const ClientPatchExamples = {
  contact: { summary: 'Another uso_cfdi and email', value: { uso_cfdi: 'G01', email: 'cuentas-por-pagar@example.com' } },
} satisfies BodyExamples<z.input<typeof ClientPatchSchema>>;
