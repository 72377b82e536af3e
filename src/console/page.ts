import type { Lang, Messages } from './messages.ts';
import { ISSUE_SCRIPT } from './issue-script.ts';
import { CONSOLE_SCRIPT } from './script.ts';

/** Markup made by `h`: only `h` makes one, so any other value put in a page is text, escaped. */
export class Markup {
  constructor(readonly text: string) {}
}
type Part = Markup | string | number | null | undefined | false | readonly Part[];

const escapeText = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const render = (v: Part): string =>
  v instanceof Markup ? v.text : Array.isArray(v) ? v.map(render).join('') : v === null || v === undefined || v === false ? '' : escapeText(String(v));

/** The console's only way to write HTML: every interpolated value is escaped unless it is Markup made here. */
export function h(strings: TemplateStringsArray, ...values: Part[]): Markup {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Markup(out);
}

const CSS = `* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2330; background: #f5f6f8; }
a { color: #1f5fc4; }
:focus-visible { outline: 3px solid #1f6feb; outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 2; }
.envbar { padding: .35rem 1rem; font-weight: 700; letter-spacing: .04em; }
.envbar.test { background: #e8eefc; color: #1d3a7a; }
.envbar.live { background: #b00020; color: #fff; font-size: 1.05rem; }
header { background: #1d2330; color: #fff; padding: .6rem 1rem; display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.25rem; }
header .tenant { font-weight: 700; font-size: 1.1rem; margin-right: auto; }
header a, header button.link { color: #fff; }
header form { margin: 0; display: inline; }
nav a { color: #fff; font-weight: 600; }
main { max-width: 1100px; margin: 1rem auto; padding: 0 1rem; }
section, form.card { background: #fff; border-radius: 8px; padding: 1rem 1.25rem; margin-bottom: 1rem; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
label { display: block; font-weight: 600; font-size: .92rem; }
input, select { width: 100%; padding: .45rem .5rem; font: inherit; border: 1px solid #8a93a3; border-radius: 6px; margin-top: .2rem; background: #fff; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: .75rem; align-items: end; }
button { background: #1f5fc4; color: #fff; border: 0; border-radius: 6px; padding: .5rem 1rem; font: inherit; font-weight: 600; cursor: pointer; }
button.secondary { background: #4b5563; }
button.danger { background: #b00020; }
button.link { background: none; padding: 0; text-decoration: underline; font-weight: 400; }
.error { border-left: 4px solid #b00020; background: #fff5f5; padding: .6rem .8rem; margin-bottom: 1rem; }
.notice { border-left: 4px solid #1f6feb; background: #eef4ff; padding: .6rem .8rem; margin-bottom: 1rem; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #e3e6eb; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
dt { font-weight: 600; } dd { margin: 0; word-break: break-word; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
.actions a { font-weight: 600; }
.pager { display: flex; gap: 1rem; margin-top: .75rem; }
.login { max-width: 420px; margin: 3rem auto; }
.login label { margin-top: .8rem; } .login button { margin-top: 1rem; width: 100%; }
@media (max-width: 700px) {
  table.list thead { display: none; }
  table.list tr { display: block; border-bottom: 1px solid #d0d4db; padding: .4rem 0; }
  table.list td { display: block; border: 0; padding: .1rem 0; text-align: left; }
  table.list td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
  dl { grid-template-columns: 1fr; } dt { margin-top: .4rem; }
}
/* received, receipts, profile, stats */
.hint { color: #4b5563; font-size: .9rem; margin: .5rem 0 0; }
.mono, code { font-family: ui-monospace, Menlo, Consolas, monospace; word-break: break-all; }
td.ok { color: #17663a; font-weight: 600; } td.bad, .flag { color: #b00020; font-weight: 700; }
.v-invalid { color: #b00020; font-weight: 600; } .v-validated { color: #17663a; }
progress { width: 12rem; vertical-align: middle; }
ul { margin: 0; padding-left: 1.1rem; }
.pair { white-space: nowrap; }
.chart-box { overflow-x: auto; max-width: 100%; }
.chart { max-width: 100%; height: auto; }
.chart .bar { fill: #1f5fc4; } .chart .axis { stroke: #8a93a3; stroke-width: 1; }
.chart text { font: 11px system-ui, sans-serif; fill: #1d2330; }
caption { text-align: left; color: #4b5563; font-size: .9rem; padding-bottom: .3rem; }
.brand-sample { border: 1px solid #e3e6eb; border-radius: 8px; padding: .75rem; max-width: 420px; }
.brand-head { display: flex; align-items: center; gap: .75rem; margin: .5rem 0; }
.brand-logo { max-width: 110px; max-height: 52px; }
form.inline { display: inline; margin: 0; }
form.inline select { width: auto; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.help { font-size: .9rem; color: #4b5563; }
input.check { width: auto; margin: 0 .3rem 0 0; }
code { word-break: break-all; }
#api-key-secret { font-family: ui-monospace, monospace; }
article.delivery { border-top: 1px solid #e3e6eb; padding: .5rem 0; }
article.delivery h3 { margin: .25rem 0; font-size: 1rem; }
#h-webhook, #webhooks td a { overflow-wrap: anywhere; }
.field-error { display: block; color: #b00020; font-size: .88rem; font-weight: 600; margin-top: .15rem; }
[aria-invalid="true"] { border-color: #b00020; border-width: 2px; }
form.issue fieldset { border: 1px solid #d0d4db; border-radius: 6px; margin: 0 0 .9rem; padding: .5rem .8rem .8rem; }
form.issue legend { font-weight: 700; padding: 0 .3rem; }
form.issue .field.wide { grid-column: 1 / -1; }
form.issue .label { display: block; font-weight: 600; font-size: .92rem; }
form.issue output.importe { display: block; padding: .45rem 0; font-variant-numeric: tabular-nums; }
form.issue .totals dd { text-align: right; font-variant-numeric: tabular-nums; }
form.issue .hint { color: #4b5563; font-size: .88rem; }
.grid .wide { grid-column: 1 / -1; }
small { display: block; color: #4b5563; font-size: .85rem; }
fieldset { border: 1px solid #d0d4db; border-radius: 6px; margin: .5rem 0; padding: .5rem .75rem; }
fieldset[aria-invalid="true"] { border-color: #b00020; }
.choice { display: grid; grid-template-columns: auto 1fr; gap: 0 .5rem; align-items: start; margin: .35rem 0; }
.choice input { width: auto; margin-top: .35rem; } .choice small { grid-column: 2; }
form.card h2, details summary h2 { margin-top: 0; }
details summary { cursor: pointer; } details summary h2 { display: inline; font-size: 1.2rem; }
pre.xml { overflow-x: auto; max-height: 32rem; background: #f5f6f8; padding: .75rem; font-size: .8rem; white-space: pre; }
`;

const hash = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex').slice(0, 12);
const NAMES = { script: `console-${hash(CONSOLE_SCRIPT)}.js`, css: `console-${hash(CSS)}.css`, issue: `console-issue-${hash(ISSUE_SCRIPT)}.js` };
/** The issue form's own script (issue-script.ts), loaded by that page only. */
export const ISSUE_SCRIPT_PATH = `/console/assets/${NAMES.issue}`;

/** The console's assets by name: the names carry their content's hash, so browsers keep them for a year. */
export const CONSOLE_ASSETS = new Map<string, { type: string; body: string }>([
  [NAMES.script, { type: 'text/javascript; charset=utf-8', body: CONSOLE_SCRIPT }],
  [NAMES.css, { type: 'text/css; charset=utf-8', body: CSS }],
  [NAMES.issue, { type: 'text/javascript; charset=utf-8', body: ISSUE_SCRIPT }],
]);

/** As strict as the portal's: scripts and styles only from files of this origin, no frames, forms only here. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The navigation: each screen's first page, in this order (a screen adds its line here); `roles`: shown only to these. */
const NAV: { href: string; label: (t: Messages) => string; roles?: string[] }[] = [
  { href: '/console/invoices', label: (t) => t.invoices },
  { href: '/console/invoices/new', label: (t) => t.issueTitle, roles: ['ADMIN', 'OPERATOR'] },
  { href: '/console/received', label: (t) => t.received },
  { href: '/console/receipts', label: (t) => t.receipts },
  { href: '/console/profile', label: (t) => t.profile },
  { href: '/console/stats', label: (t) => t.stats },
  { href: '/console/clients', label: (t) => t.clients },
  { href: '/console/series', label: (t) => t.series },
  // The API shows webhooks and the audit log to ADMIN only: another role is not offered a page it would be refused.
  { href: '/console/webhooks', label: (t) => t.webhooks, roles: ['ADMIN'] },
  { href: '/console/csds', label: (t) => t.csds },
  { href: '/console/api-keys', label: (t) => t.apiKeys },
  { href: '/console/users', label: (t) => t.users },
  { href: '/console/audit-log', label: (t) => t.auditLog, roles: ['ADMIN'] },
];

/** The navigation entry a page is under: the longest one its path starts with. */
const current = (here: string) =>
  NAV.map((n) => n.href)
    .filter((href) => here === href || here.startsWith(`${href}/`))
    .sort((a, b) => b.length - a.length)[0];

/** Who is looking, for the layout: the tenant, the user's role, the environment, the form token. */
export interface Viewer {
  lang: Lang;
  t: Messages;
  csrf: string;
  tenantName: string;
  email: string;
  role: string;
  environment: 'test' | 'live';
  /** Where the page is, for the environment switch to come back to. */
  here: string;
}

function document(lang: Lang, title: string, body: Markup): string {
  return h`<!DOCTYPE html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/${NAMES.css}">
<script src="/console/assets/${NAMES.script}" defer></script>
</head>
<body>
${body}
</body>
</html>
`.text;
}

/** A page of a signed-in user: the environment bar (live unmistakable), the tenant, navigation, sign out. */
export function page(v: Viewer, title: string, content: Markup): string {
  const { t } = v;
  const other = v.environment === 'live' ? 'test' : 'live';
  // The switch comes back to the screen's first page: ids are per environment, and a change's page has no GET.
  const bar =
    v.environment === 'live'
      ? h`<div class="envbar live" id="env" data-environment="live" role="status">${t.liveBanner}</div>`
      : h`<div class="envbar test" id="env" data-environment="test">${t.environment}: ${t.test}</div>`;
  const body = h`<a class="skip" href="#main">${t.skip}</a>
${bar}
<header>
<span class="tenant" id="tenant">${v.tenantName}</span>
<nav aria-label="${t.title}">${NAV.filter((n) => !n.roles || n.roles.includes(v.role)).map((n) => h`<a href="${n.href}"${n.href === current(v.here) ? h` aria-current="page"` : ''}>${n.label(t)}</a> `)}</nav>
<form method="post" action="/console/environment"><input type="hidden" name="csrf" value="${v.csrf}"><input type="hidden" name="environment" value="${other}"><input type="hidden" name="back" value="${current(v.here) ?? '/console/invoices'}"><button type="submit" class="link" id="switch-env">${t.switchTo(other === 'live' ? t.live : t.test)}</button></form>
<a href="/console/language?to=${t.languageCode}" lang="${t.languageCode}" id="language">${t.language}</a>
<span id="who">${v.email} · ${t.role}: <span id="role">${v.role}</span></span>
<form method="post" action="/console/logout"><input type="hidden" name="csrf" value="${v.csrf}"><button type="submit" class="link" id="sign-out">${t.signOut}</button></form>
</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${content}
</main>`;
  return document(v.lang, `${title} — ${v.tenantName}`, body);
}

/** The sign-in form; `error` says why the last attempt was refused. */
export function loginPage(o: { lang: Lang; t: Messages; csrf: string; email?: string; error?: string; notice?: string }): string {
  const { t } = o;
  const body = h`<main id="main" class="login">
<form method="post" action="/console/login" class="card" id="login">
<h1>${t.signInTitle}</h1>
${o.notice ? h`<p class="notice" role="status" id="notice">${o.notice}</p>` : ''}
${o.error ? h`<p class="error" role="alert" id="login-error">${o.error}</p>` : ''}
<input type="hidden" name="csrf" value="${o.csrf}">
<label for="email">${t.email}</label>
<input id="email" name="email" type="email" required autocomplete="username" maxlength="254" value="${o.email ?? ''}"${o.error ? h` aria-invalid="true" aria-describedby="login-error"` : ''}>
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" required autocomplete="current-password" maxlength="128">
<label for="tenant_id">${t.tenantId}</label>
<input id="tenant_id" name="tenant_id" autocomplete="off" spellcheck="false" maxlength="64">
<button type="submit" id="sign-in">${t.signIn}</button>
<p><a href="/console/language?to=${t.languageCode}" lang="${t.languageCode}">${t.language}</a></p>
</form>
</main>`;
  return document(o.lang, t.signIn, body);
}

/** A page that says only that something was refused or not found (signed in or not). */
export function messagePage(lang: Lang, title: string, text: string, back?: Markup): string {
  return document(lang, title, h`<main id="main" class="login"><section><h1>${title}</h1><p id="message">${text}</p>${back ?? ''}</section></main>`);
}
