import type { z } from '@hono/zod-openapi';
import type { BodyExamples } from '../../lib/schemas.ts';
import type { TenantPatchSchema } from './schemas.ts';

export const TenantPatchExamples = {
  profile: {
    summary: 'Régimen, postal code and the PDF accent colour',
    value: { nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', codigo_postal: '42501', accent_color: '#1F4E8C' },
  },
  reply_to: {
    summary: "Customers' replies to the CFDI emails go to this address",
    value: { reply_to: 'facturacion@kemper.example.com' },
  },
} satisfies BodyExamples<z.input<typeof TenantPatchSchema>>;

export const LogoUploadExamples = {
  png: { summary: 'One multipart field, logo: a PNG or JPEG file', value: { logo: '(the file logo.png)' } },
};
