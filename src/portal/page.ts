import { catalogRows, inForce } from '../catalogs/index.ts';
import { PORTAL_SCRIPT } from './script.ts';

const PAGE_CSS = `:root { --accent: #1f6feb; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2330; background: #f5f6f8; }
header { background: var(--accent); color: #fff; padding: 1rem 1.5rem; display: flex; align-items: center; gap: 1rem; }
header img { max-height: 56px; max-width: 160px; background: #fff; border-radius: 6px; padding: 4px; }
header h1 { margin: 0; font-size: 1.4rem; }
header p { margin: 0; opacity: .9; }
main { max-width: 720px; margin: 1.5rem auto; padding: 0 1rem; }
section, form { background: #fff; border-radius: 10px; padding: 1.25rem 1.5rem; margin-bottom: 1rem; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
label { display: block; font-weight: 600; margin-top: .9rem; }
input, select { width: 100%; padding: .55rem .6rem; font: inherit; border: 1px solid #c5cad3; border-radius: 6px; margin-top: .25rem; }
input[aria-invalid], select[aria-invalid] { border-color: #c62828; background: #fff5f5; }
.fila { display: flex; gap: .5rem; align-items: flex-end; }
.fila > div { flex: 1; }
button { background: var(--accent); color: #fff; border: 0; border-radius: 6px; padding: .6rem 1.2rem; font: inherit; font-weight: 600; cursor: pointer; margin-top: 1rem; }
button:disabled { opacity: .5; cursor: default; }
#errores { border-left: 4px solid #c62828; background: #fff5f5; }
#errores .titulo { font-weight: 700; margin-top: 0; }
.regla { color: #6b7280; font-size: .9em; white-space: nowrap; }
.aviso { border-left: 4px solid #b26a00; background: #fff8e6; padding: .6rem .8rem; }
.nota { color: #4b5563; font-size: .92em; }
table { width: 100%; border-collapse: collapse; margin-top: .5rem; }
th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid #eceef2; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dd { margin: 0; }
code { font-size: 1.05em; word-break: break-all; }
.descargas a { display: inline-block; margin-right: 1rem; color: var(--accent); font-weight: 600; }
`;

const hash = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex').slice(0, 12);
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const NAMES = { script: `portal-${hash(PORTAL_SCRIPT)}.js`, css: `portal-${hash(PAGE_CSS)}.css` };

/** The page's assets by name: the names carry their content's hash, so browsers keep them for a year. */
export const PORTAL_ASSETS = new Map<string, { type: string; body: string }>([
  [NAMES.script, { type: JS, body: PORTAL_SCRIPT }],
  [NAMES.css, { type: CSS, body: PAGE_CSS }],
]);

const html = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** Catalog keys in force today, as select options: the customer picks from SAT's lists, never types a key. */
function options(catalog: 'c_RegimenFiscal' | 'c_UsoCFDI', selected?: string): string {
  const today = new Date().toISOString().slice(0, 10);
  return catalogRows(catalog)
    .filter((row) => inForce(row, today) && row.clave !== 'CP01' && row.clave !== 'CN01')
    .map((row) => {
      const key = row.clave!;
      return `<option value="${html(key)}"${key === selected ? ' selected' : ''}>${html(key)} — ${html((row.descripcion ?? '').replace(/\.$/, ''))}</option>`;
    })
    .join('');
}

/** A colour the tenant set (#RRGGBB), or the default. */
const accentOf = (color: string | undefined) => (color && /^#[0-9a-fA-F]{6}$/.test(color) ? color : undefined);

/** The inline style block of a page (the tenant's colour) and the CSP that allows exactly it, by its hash. */
function themed(accent: string | undefined) {
  const style = accent ? `:root { --accent: ${accent}; }` : '';
  const styleHash = style ? `'sha256-${new Bun.CryptoHasher('sha256').update(style).digest('base64')}'` : '';
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self'${styleHash ? ` ${styleHash}` : ''}`,
    "img-src 'self' data:", // the empty favicon (data:,): no request for /favicon.ico
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { tag: style ? `<style>${style}</style>` : '', csp };
}

function layout(title: string, head: string, header: string, body: string) {
  return `<!DOCTYPE html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${html(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/portal/assets/${NAMES.css}">
${head}
</head>
<body>
${header}
${body}
</body>
</html>
`;
}

export interface PortalPageInput {
  tenantId: string;
  nombre: string;
  accentColor?: string;
  hasLogo: boolean;
  /** Whether SMTP is configured: without it the page offers no email and says so. */
  email: boolean;
  clave?: string;
}

/** GET /portal/{tenant_id}: the self-invoicing form, in Spanish, with the tenant's name, logo and colour. */
export function portalPage(p: PortalPageInput): { html: string; csp: string } {
  const theme = themed(accentOf(p.accentColor));
  const base = `/portal/${encodeURIComponent(p.tenantId)}`;
  const logo = p.hasLogo ? `<img src="${html(base)}/logo" alt="${html(p.nombre)}">` : '';
  const header = `<header>${logo}<div><h1>${html(p.nombre)}</h1><p>Factura tu ticket</p></div></header>`;
  const email = p.email
    ? `<label for="email">Correo electrónico (opcional)</label>
<input id="email" name="email" type="email" autocomplete="email" maxlength="254" placeholder="tu@correo.com">
<p class="nota">Si lo escribes, te enviamos el PDF y el XML por correo.</p>`
    : `<p class="nota" id="sin-correo">Este comercio no tiene configurado el envío por correo: al terminar, descarga aquí tu PDF y tu XML.</p>`;
  const body = `<main id="portal" data-base="${html(base)}">
<section id="errores" role="alert" tabindex="-1" hidden></section>
<form id="formulario" novalidate>
<div class="fila"><div>
<label for="clave">Clave del ticket</label>
<input id="clave" name="clave" required maxlength="64" autocomplete="off" spellcheck="false" value="${html(p.clave ?? '')}" placeholder="La clave impresa en tu ticket">
</div><button type="button" id="buscar">Buscar ticket</button></div>
<p class="nota">También la encuentras en el enlace o código QR impreso en el ticket.</p>
<section id="ticket" hidden></section>
<h2>Tus datos fiscales</h2>
<p class="nota">Escríbelos como aparecen en tu Constancia de Situación Fiscal.</p>
<label for="rfc">RFC</label>
<input id="rfc" name="rfc" required minlength="12" maxlength="13" autocomplete="off" spellcheck="false">
<label for="nombre">Nombre o razón social</label>
<input id="nombre" name="nombre" required maxlength="300" autocomplete="organization">
<label for="domicilio_fiscal">Código postal de tu domicilio fiscal</label>
<input id="domicilio_fiscal" name="domicilio_fiscal" required inputmode="numeric" pattern="[0-9]{5}" maxlength="5" autocomplete="postal-code">
<label for="regimen_fiscal">Régimen fiscal</label>
<select id="regimen_fiscal" name="regimen_fiscal" required><option value="">Elige tu régimen</option>${options('c_RegimenFiscal')}</select>
<label for="uso_cfdi">Uso del CFDI</label>
<select id="uso_cfdi" name="uso_cfdi" required><option value="">Elige el uso</option>${options('c_UsoCFDI')}</select>
${email}
<button type="submit" id="facturar">Facturar</button>
</form>
<section id="resultado" hidden></section>
</main>
<script src="/portal/assets/${NAMES.script}"></script>`;
  return { html: layout(`Facturación — ${p.nombre}`, theme.tag, header, body), csp: theme.csp };
}

/** The page for a tenant that does not exist: it says only that. */
export function notFoundPage(): { html: string; csp: string } {
  const theme = themed(undefined);
  const body = `<main><section><h2>Portal no encontrado</h2><p>No existe un portal de facturación en esta dirección. Revisa el enlace impreso en tu ticket.</p></section></main>`;
  return { html: layout('Portal no encontrado', '', '<header><div><h1>Facturación</h1></div></header>', body), csp: theme.csp };
}
