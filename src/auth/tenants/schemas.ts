import { z } from '@hono/zod-openapi';
import { isPostalCode, personaOf, regimenFiscal } from '../../catalogs/index.ts';
import { T_RFC } from '../../cfdi/patterns.ts';
import { CodigoPostal, Email, Rfc, xmlText } from '../../lib/schemas.ts';
import { LOGO_TYPES, type tenantBranding, type tenants } from '../../db/schema/index.ts';
import { PLANS, rateLimitOf } from '../../lib/plans.ts';

/** Why `regimen` cannot be used by the taxpayer with this RFC, or undefined when it can (c_RegimenFiscal). */
export function regimenProblem(rfc: string, regimen: string): string | undefined {
  const entry = regimenFiscal(regimen);
  if (!entry) return 'is not a key of the SAT catalog c_RegimenFiscal';
  const persona = personaOf(rfc);
  if (persona === 'moral' && !entry.moral) return `${regimen} (${entry.descripcion}) does not apply to a persona moral (12-character RFC)`;
  if (persona === 'fisica' && !entry.fisica) return `${regimen} (${entry.descripcion}) does not apply to a persona física (13-character RFC)`;
  return undefined;
}

const RegimenFiscal = z
  .string()
  .regex(/^[0-9]{3}$/, 'must be a 3-digit SAT régimen key')
  .openapi({ example: '601' });
const TenantCodigoPostal = CodigoPostal.refine(isPostalCode, 'is not in the SAT catalog c_CodigoPostal');
const RazonSocial = xmlText(300).openapi({
  example: 'ESCUELA KEMPER URGATE',
  description: 'Exactly as in the Constancia de Situación Fiscal, without the corporate suffix',
});

export const TenantInputSchema = z
  .object({
    rfc: Rfc.refine((r) => r !== 'XAXX010101000' && r !== 'XEXX010101000', 'a generic RFC cannot issue invoices'),
    nombre: RazonSocial,
    regimen_fiscal: RegimenFiscal,
    codigo_postal: TenantCodigoPostal,
  })
  .strict()
  .superRefine((t, ctx) => {
    // Only when both parts are well-formed: a broken RFC or key already has its own issue.
    if (!T_RFC.test(t.rfc) || !/^[0-9]{3}$/.test(t.regimen_fiscal)) return;
    const problem = regimenProblem(t.rfc, t.regimen_fiscal);
    if (problem) ctx.addIssue({ code: 'custom', path: ['regimen_fiscal'], message: problem });
  })
  .openapi('TenantInput');

const AccentColor = z
  .string()
  .regex(/^#[0-9A-Fa-f]{6}$/, 'must be a colour as #RRGGBB')
  .openapi({ example: '#1F4E8C', description: 'Colour of the rules and title bar on the invoice PDF' });

const ReplyTo = Email.openapi({
  example: 'facturacion@kemper.example.com',
  description: "Where your customers' replies to the CFDI emails go (their Reply-To header); the sender stays the server's SMTP_FROM, shown with your name",
});

/**
 * The fiscal address, in Mexico: Comercio Exterior's Emisor/Domicilio. Its catalog keys are checked against each
 * other when a Comercio Exterior CFDI is issued (CCE169–CCE173), where SAT's rule codes are reported.
 */
const DomicilioFiscal = z
  .object({
    calle: xmlText(100).openapi({ example: 'Av. Constitución' }),
    numero_exterior: xmlText(55).optional().openapi({ example: '100' }),
    numero_interior: xmlText(55).optional(),
    colonia: z
      .string()
      .regex(/^\d{4}$/, 'must be a 4-digit c_Colonia key of the código postal (GET /catalogos/colonias?codigo_postal=)')
      .optional()
      .openapi({ example: '0001' }),
    localidad: z
      .string()
      .regex(/^\d{2}$/, 'must be a 2-digit c_Localidad key of the estado')
      .optional()
      .openapi({ example: '07' }),
    municipio: z
      .string()
      .regex(/^\d{3}$/, 'must be a 3-digit c_Municipio key of the estado')
      .optional()
      .openapi({ example: '039' }),
    estado: z
      .string()
      .regex(/^[A-Z]{3}$/, 'must be a 3-letter c_Estado key of Mexico')
      .openapi({ example: 'NLE' }),
    pais: z.literal('MEX', { message: 'must be MEX: the fiscal address is in Mexico' }).default('MEX'),
    codigo_postal: TenantCodigoPostal.openapi({ example: '64000' }),
  })
  .strict()
  .openapi('DomicilioFiscal', { description: "The issuer's fiscal address, as on its Constancia de Situación Fiscal" });

export const TenantPatchSchema = z
  .object({
    nombre: RazonSocial.optional(),
    regimen_fiscal: RegimenFiscal.optional(),
    codigo_postal: TenantCodigoPostal.optional(),
    accent_color: AccentColor.nullable().optional().openapi({ description: '#RRGGBB for the invoice PDF; null restores the default' }),
    reply_to: ReplyTo.nullable().optional().openapi({ description: 'Reply-To of the CFDI emails; null: none (replies go to SMTP_FROM)' }),
    domicilio_fiscal: DomicilioFiscal.nullable()
      .optional()
      .openapi({ description: "The fiscal address Comercio Exterior CFDIs state as the emisor's; null removes it" }),
  })
  .strict()
  .openapi('TenantPatch');

export const TenantSchema = z
  .object({
    id: z.string().openapi({ example: 'ten_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    rfc: z.string(),
    nombre: z.string(),
    regimen_fiscal: z.string(),
    codigo_postal: z.string(),
    plan: z.enum(PLANS),
    rate_limit_per_minute: z.number().int().openapi({ description: 'Requests per minute per API key (per user for a JWT)' }),
    branding: z
      .object({
        accent_color: z.string().nullable(),
        logo: z
          .object({ content_type: z.enum(LOGO_TYPES), size: z.number().int(), url: z.string().openapi({ example: '/api/v1/tenants/me/logo' }) })
          .nullable(),
      })
      .openapi({ description: 'What the invoice PDF shows of the brand: PUT /tenants/me/logo, PATCH accent_color' }),
    reply_to: z.string().nullable().openapi({
      example: 'facturacion@kemper.example.com',
      description: "Reply-To of the CFDI emails (PATCH reply_to), so customers' replies reach you; null: none, replies go to the server's SMTP_FROM",
    }),
    domicilio_fiscal: DomicilioFiscal.nullable().openapi({ description: 'The fiscal address (PATCH domicilio_fiscal); null: none set' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Tenant');

export type TenantRow = typeof tenants.$inferSelect;

type BrandingRow = Pick<typeof tenantBranding.$inferSelect, 'accentColor' | 'logoType'> & { logoSize: number | null };

export const toTenant = (t: TenantRow, b?: BrandingRow): z.infer<typeof TenantSchema> => ({
  id: t.id,
  rfc: t.rfc,
  nombre: t.nombre,
  regimen_fiscal: t.regimenFiscal,
  codigo_postal: t.codigoPostal,
  plan: t.plan,
  rate_limit_per_minute: rateLimitOf(t),
  branding: {
    accent_color: b?.accentColor ?? null,
    logo: b?.logoType && b.logoSize ? { content_type: b.logoType, size: b.logoSize, url: '/api/v1/tenants/me/logo' } : null,
  },
  reply_to: t.replyTo,
  domicilio_fiscal: t.domicilioFiscal ?? null,
  created_at: t.createdAt,
  updated_at: t.updatedAt,
});

/** Largest accepted logo: it is embedded in every PDF. */
export const MAX_LOGO_BYTES = 256 * 1024;

export const LogoUploadSchema = z
  .object({
    logo: z
      .instanceof(File, { message: 'must be a file (multipart field "logo")' })
      .openapi({ type: 'string', format: 'binary', description: `PNG or JPEG, at most ${MAX_LOGO_BYTES / 1024} KiB` }),
  })
  .openapi('LogoUpload');
