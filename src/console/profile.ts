import type { ConsoleContext, ConsoleKit, ConsoleRouter, PageStatus, Session } from './kit.ts';
import { h, type Markup, page, type Viewer } from './page.ts';
import { csrfField, fieldErrors, fieldWithIssue, formStatus } from './forms.ts';

/** GET /api/v1/tenants/me, as far as the profile shows it. */
interface Tenant {
  id: string;
  rfc: string;
  nombre: string;
  regimen_fiscal: string;
  codigo_postal: string;
  plan: string;
  branding: { accent_color: string | null; logo: { content_type: string; size: number } | null };
  reply_to: string | null;
}

type Refusal = { message: string; fields: Record<string, string> };
const EDITABLE = ['nombre', 'regimen_fiscal', 'codigo_postal', 'accent_color', 'reply_to'] as const;
/** The PDF's and the portal's colour when the tenant chose none. */
const DEFAULT_COLOUR = '#1F4E8C';

function profileForm(v: Viewer, tenant: Tenant, values: Record<string, string>, error?: Refusal): Markup {
  const { t } = v;
  const e = error?.fields ?? {};
  return h`<form method="post" action="/console/profile" class="card" id="profile-form">
${csrfField(v)}
<h2>${t.prfEdit}</h2>
${error ? h`<p class="error" role="alert" id="form-error">${error.message || t.failed}</p>` : ''}
<div class="grid">
${fieldWithIssue('nombre', t.prfNombre, values.nombre, h`maxlength="300" required`, e.nombre)}
${fieldWithIssue('regimen_fiscal', t.prfRegimen, values.regimen_fiscal, h`maxlength="3" inputmode="numeric" required`, e.regimen_fiscal)}
${fieldWithIssue('codigo_postal', t.prfCodigoPostal, values.codigo_postal, h`maxlength="5" inputmode="numeric" required`, e.codigo_postal)}
${fieldWithIssue('accent_color', t.prfColour, values.accent_color, h`maxlength="7" placeholder="${DEFAULT_COLOUR}" spellcheck="false"`, e.accent_color)}
${fieldWithIssue('reply_to', t.prfReplyTo, values.reply_to, h`type="email" maxlength="254"`, e.reply_to)}
<div class="actions"><button type="submit" id="save-profile">${t.save}</button></div>
</div>
<p class="hint">${t.prfColourHint} ${tenant.rfc}</p>
</form>
<form method="post" action="/console/profile/logo" enctype="multipart/form-data" class="card" id="logo-form">
${csrfField(v)}
<h2>${t.prfLogo}</h2>
${e.logo ? h`<p class="error" role="alert" id="logo-error">logo: ${e.logo}</p>` : ''}
<div class="grid">
<div><label for="f-logo">${t.prfLogoFile}</label><input id="f-logo" name="logo" type="file" accept="image/png,image/jpeg" required${e.logo ? h` aria-invalid="true" aria-describedby="logo-error"` : ''}></div>
<div class="actions"><button type="submit" id="upload-logo">${t.prfUploadLogo}</button></div>
</div>
</form>`;
}

/** The brand as the portal and the PDF show it: a bar of the colour (an SVG attribute, not a style), the logo, the name. */
function preview(v: Viewer, tenant: Tenant, bust: string): Markup {
  const { t } = v;
  const colour = tenant.branding.accent_color ?? DEFAULT_COLOUR;
  return h`<section aria-labelledby="h-preview" id="preview">
<h2 id="h-preview">${t.prfPreview}</h2>
<div class="brand-sample">
<svg width="100%" height="14" viewBox="0 0 300 14" preserveAspectRatio="none" role="img" aria-label="${t.prfColour}: ${colour}" id="brand-bar"><rect width="300" height="14" fill="${colour}"></rect></svg>
<div class="brand-head">${tenant.branding.logo ? h`<img src="/console/profile/logo?v=${bust}" alt="${t.prfLogo}" id="brand-logo" class="brand-logo">` : ''}<strong id="brand-name">${tenant.nombre}</strong></div>
<p>${t.prfPortalSample}</p>
<svg width="160" height="36" viewBox="0 0 160 36" role="img" aria-label="${t.prfButtonSample}"><rect width="160" height="36" rx="6" fill="${colour}"></rect><text x="80" y="23" text-anchor="middle" fill="#ffffff" font-size="14" font-weight="600">${t.prfButtonSample}</text></svg>
</div>
<p><a href="/portal/${tenant.id}" target="_blank" rel="noopener" id="portal-link">${t.prfOpenPortal}</a></p>
</section>`;
}

function profileContent(v: Viewer, tenant: Tenant, o: { values?: Record<string, string>; error?: Refusal; saved?: boolean } = {}): Markup {
  const { t } = v;
  const values = o.values ?? {
    nombre: tenant.nombre,
    regimen_fiscal: tenant.regimen_fiscal,
    codigo_postal: tenant.codigo_postal,
    accent_color: tenant.branding.accent_color ?? '',
    reply_to: tenant.reply_to ?? '',
  };
  return h`${o.saved ? h`<p class="notice" role="status" id="saved">${t.saved}</p>` : ''}
<section aria-labelledby="h-profile">
<h2 id="h-profile">${t.profile}</h2>
<dl>
<dt>RFC</dt><dd id="rfc">${tenant.rfc}</dd>
<dt>${t.prfNombre}</dt><dd id="nombre">${tenant.nombre}</dd>
<dt>${t.prfRegimen}</dt><dd id="regimen">${tenant.regimen_fiscal}</dd>
<dt>${t.prfCodigoPostal}</dt><dd id="codigo-postal">${tenant.codigo_postal}</dd>
<dt>${t.prfColour}</dt><dd id="accent-color">${tenant.branding.accent_color ?? t.prfDefault}</dd>
<dt>${t.prfReplyTo}</dt><dd id="reply-to">${tenant.reply_to ?? '—'}</dd>
<dt>${t.prfPlan}</dt><dd>${tenant.plan}</dd>
</dl>
</section>
${v.role === 'ADMIN' ? profileForm(v, tenant, values, o.error) : ''}
${preview(v, tenant, String(tenant.branding.logo?.size ?? 0))}`;
}

/** The tenant's profile and branding: its fiscal data, colour and logo, and a preview of the portal with them. */
export function mountProfileScreens(web: ConsoleRouter, kit: ConsoleKit) {
  const tenantOf = async (c: ConsoleContext, session: Session) => {
    const res = await kit.api(c, session, 'GET', '/api/v1/tenants/me');
    return res.status === 200 ? ((await res.json()) as Tenant) : undefined;
  };
  const refusedPage = async (c: ConsoleContext, session: Session, viewer: Viewer, res: Response, values?: Record<string, string>) => {
    if (res.status === 403) return (await kit.refused(c, viewer, res))!;
    const error = await fieldErrors(res);
    const tenant = await tenantOf(c, session);
    if (!tenant) return kit.notFound(c, viewer);
    const status: PageStatus = formStatus(res.status);
    return kit.htmlPage(c, page(viewer, viewer.t.profile, profileContent(viewer, tenant, { values, error })), status);
  };

  web.get(
    '/console/profile',
    kit.signedIn(async (c, session, viewer) => {
      const tenant = await tenantOf(c, session);
      if (!tenant) return kit.notFound(c, viewer);
      return kit.htmlPage(c, page(viewer, viewer.t.profile, profileContent(viewer, tenant, { saved: c.req.query('saved') !== undefined })));
    }),
  );

  web.post(
    '/console/profile',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const values = Object.fromEntries(EDITABLE.map((k) => [k, (form[k] ?? '').trim()]));
        const body = {
          nombre: values.nombre,
          regimen_fiscal: values.regimen_fiscal,
          codigo_postal: values.codigo_postal,
          // Empty: the default colour, no Reply-To.
          accent_color: values.accent_color === '' ? null : values.accent_color,
          reply_to: values.reply_to === '' ? null : values.reply_to,
        };
        const res = await kit.api(c, session, 'PATCH', '/api/v1/tenants/me', body);
        if (res.status === 200) return kit.redirect(c, '/console/profile?saved');
        return refusedPage(c, session, viewer, res, values);
      }),
    ),
  );

  web.post(
    '/console/profile/logo',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        const logo = (await c.req.parseBody())['logo'];
        if (!(logo instanceof File) || logo.size === 0) {
          const tenant = await tenantOf(c, session);
          if (!tenant) return kit.notFound(c, viewer);
          const error = { message: viewer.t.failed, fields: { logo: viewer.t.prfChooseLogo } };
          return kit.htmlPage(c, page(viewer, viewer.t.profile, profileContent(viewer, tenant, { error })), 400);
        }
        // The API's multipart form, made here: its boundary is the encoder's.
        const form = new FormData();
        form.append('logo', logo, logo.name || 'logo');
        const encoded = new Response(form);
        const type = encoded.headers.get('content-type') ?? 'multipart/form-data';
        const res = await kit.apiRaw(c, session, 'PUT', '/api/v1/tenants/me/logo', await encoded.arrayBuffer(), type);
        if (res.status === 200) return kit.redirect(c, '/console/profile?saved');
        return refusedPage(c, session, viewer, res);
      }),
    ),
  );

  web.get(
    '/console/profile/logo',
    kit.signedIn(async (c, session, viewer) => {
      const res = await kit.api(c, session, 'GET', '/api/v1/tenants/me/logo');
      if (res.status !== 200) return kit.notFound(c, viewer);
      return new Response(res.body, {
        headers: { 'Content-Type': res.headers.get('content-type') ?? 'image/png', 'Cache-Control': 'private, no-store', 'X-Content-Type-Options': 'nosniff' },
      });
    }),
  );
}
