import type { ConsoleContext, ConsoleKit, ConsoleRouter, PageStatus, Session } from './kit.ts';
import { h, type Markup, page, type Viewer } from './page.ts';

/** GET /api/v1/cfdis's item, as far as the list shows it. */
interface ListItem {
  id: string;
  uuid: string | null;
  tipo: string;
  status: string;
  serie: string | null;
  folio: number | null;
  fecha: string;
  receptor: { rfc: string; nombre: string };
  moneda: string;
  total: number;
}

/** GET /api/v1/cfdis/{id}, as far as the detail shows it. */
interface Detail extends ListItem {
  emisor: { rfc: string; nombre: string; regimen_fiscal: string };
  conceptos: {
    descripcion: string;
    cantidad: number;
    valor_unitario: number;
    importe: number;
    descuento?: number;
    hidrocarburos_petroliferos?: Record<string, unknown>;
  }[];
  /** The complements GET shows, each under its request member (as far as their lines in words need). */
  pagos?: {
    fecha_pago?: string;
    forma_pago?: string;
    moneda?: string;
    monto?: number;
    documentos?: { uuid?: string; num_parcialidad?: number; imp_pagado?: number; imp_saldo_insoluto?: number; moneda?: string }[];
  }[];
  nomina?: Record<string, unknown>;
  carta_porte?: Record<string, unknown>;
  comercio_exterior?: Record<string, unknown>;
  impuestos_locales?: Record<string, unknown>;
  subtotal: number;
  descuento?: number;
  total_impuestos_trasladados?: number;
  total_impuestos_retenidos?: number;
  forma_pago?: string;
  metodo_pago?: string;
  fecha_timbrado: string | null;
}

/** GET /api/v1/cfdis/{id}/cancellation, as far as the detail shows it: the request and the status history. */
interface Cancellation {
  status: string;
  motivo: string;
  folio_sustitucion: string | null;
  estatus_cancelacion: string | null;
  motivo_rechazo: string | null;
  requested_at: string;
  resolved_at: string | null;
  historial: { from: string; to: string; reason: string; at: string }[];
}

/** GET /api/v1/cfdis/{id}/emails's item, as far as the detail shows it. */
export interface Email {
  id: string;
  to: string[];
  status: string;
  attempts: number;
  last_response: string | null;
  created_at?: string;
}

/** A delivery of GET /api/v1/webhooks/{id}/deliveries?cfdi_id=, with its webhook's URL. */
interface Delivery {
  url: string;
  event: string;
  state: string;
  attempts: number;
  status_code: number | null;
  error: string | null;
  created_at: string;
}

/** GET /api/v1/cfdis/{id}/sat-status, in SAT's words. */
interface SatStatus {
  consulted_at: string;
  CodigoEstatus: string;
  Estado: string;
  EsCancelable: string;
  EstatusCancelacion: string;
  ValidacionEFOS: string;
}

/**
 * The API's filters of GET /cfdis that the list offers, by their query names (and its page size, kept across pages);
 * `q` is the console's one search box (an RFC, a UUID or part of a name), turned into the API's filter it is.
 */
const FILTERS = [
  'q',
  'receptor_rfc',
  'receptor_nombre',
  'uuid',
  'serie',
  'folio',
  'status',
  'tipo',
  'desde',
  'hasta',
  'total_min',
  'total_max',
  'limit',
] as const;
export type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const UUID_RE = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
const RFC_RE = /^[A-ZÑ&]{3,4}\d{6}[A-Z\d]{3}$/i;

/** The API's query for the list's filters: `q` becomes uuid, receptor_rfc or receptor_nombre (a field given by name wins). */
function apiQuery(filters: Filters): URLSearchParams {
  const params = new URLSearchParams();
  for (const f of FILTERS) if (f !== 'q' && filters[f]) params.set(f, filters[f]!);
  const q = filters.q;
  if (q) {
    const as = UUID_RE.test(q) ? 'uuid' : RFC_RE.test(q) ? 'receptor_rfc' : 'receptor_nombre';
    if (!params.has(as)) params.set(as, q);
  }
  return params;
}

const STATUSES = ['en_cola', 'vigente', 'cancelacion_pendiente', 'cancelado', 'fallido'];
const TIPOS = ['I', 'E', 'P', 'N', 'T'];

const money = (n: number | undefined, moneda: string) =>
  n === undefined ? '' : `${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })} ${moneda}`;
const folioOf = (c: { serie: string | null; folio: number | null }) => [c.serie, c.folio].filter((x) => x !== null && x !== '').join('-');

function select(name: string, label: string, options: readonly string[], names: Record<string, string>, chosen: string | undefined, any: string) {
  return h`<div><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}"><option value="">${any}</option>${options.map(
    (o) => h`<option value="${o}"${o === chosen ? h` selected` : ''}>${o} — ${names[o] ?? o}</option>`,
  )}</select></div>`;
}

function input(name: string, label: string, value: string | undefined, attrs: Markup = h``) {
  return h`<div><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" value="${value ?? ''}" ${attrs}></div>`;
}

/** The list: the API's filters as a GET form, a page of CFDIs, the next page by the API's cursor. */
function listContent(v: Viewer, filters: Filters, items: ListItem[], next: string | null, paged: boolean, error?: string): Markup {
  const { t } = v;
  const query = (cursor: string) => {
    const params = new URLSearchParams();
    for (const f of FILTERS) if (filters[f]) params.set(f, filters[f]!);
    params.set('cursor', cursor);
    return `/console/invoices?${params}`;
  };
  const firstParams = new URLSearchParams();
  for (const f of FILTERS) if (filters[f]) firstParams.set(f, filters[f]!);
  return h`<form method="get" action="/console/invoices" class="card" id="filters" role="search" aria-label="${t.filters}">
<div class="grid">
<div class="wide">${input('q', t.searchBox, filters.q, h`type="search" maxlength="254" autocomplete="off" spellcheck="false" aria-describedby="q-hint"`)}<small id="q-hint">${t.searchHint}</small></div>
${input('receptor_rfc', t.receptorRfc, filters.receptor_rfc, h`maxlength="13" autocomplete="off" spellcheck="false"`)}
${input('receptor_nombre', t.receptorNombre, filters.receptor_nombre, h`maxlength="254" autocomplete="off"`)}
${input('uuid', t.uuid, filters.uuid, h`maxlength="36" autocomplete="off" spellcheck="false"`)}
${input('serie', t.serie, filters.serie, h`maxlength="25" autocomplete="off"`)}
${input('folio', t.folioOnly, filters.folio, h`inputmode="numeric" maxlength="15" autocomplete="off"`)}
${select('status', t.status, STATUSES, t.statuses, filters.status, t.any)}
${select('tipo', t.tipo, TIPOS, t.tipos, filters.tipo, t.any)}
${input('desde', t.from, filters.desde, h`type="date"`)}
${input('hasta', t.to, filters.hasta, h`type="date"`)}
${input('total_min', t.totalMin, filters.total_min, h`inputmode="decimal" maxlength="25" autocomplete="off"`)}
${input('total_max', t.totalMax, filters.total_max, h`inputmode="decimal" maxlength="25" autocomplete="off"`)}
<div class="actions"><button type="submit" id="search">${t.search}</button><a href="/console/invoices">${t.clear}</a></div>
</div>
</form>
${error ? h`<p class="error" role="alert" id="list-error">${error}</p>` : ''}
<section>
${
  items.length === 0
    ? h`<p id="empty">${t.noInvoices}</p>`
    : h`<table class="list" id="invoices"><thead><tr><th scope="col">${t.date}</th><th scope="col">${t.folio}</th><th scope="col">${t.receptor}</th><th scope="col">${t.tipo}</th><th scope="col">${t.status}</th><th scope="col" class="num">${t.total}</th><th scope="col">${t.uuid}</th></tr></thead><tbody>
${items.map(
  (c) =>
    h`<tr data-id="${c.id}"><td data-label="${t.date}">${c.fecha.replace('T', ' ')}</td><td data-label="${t.folio}">${folioOf(c)}</td><td data-label="${t.receptor}">${c.receptor.rfc}<br>${c.receptor.nombre}</td><td data-label="${t.tipo}">${t.tipos[c.tipo] ?? c.tipo}</td><td data-label="${t.status}">${t.statuses[c.status] ?? c.status}</td><td data-label="${t.total}" class="num">${money(c.total, c.moneda)}</td><td data-label="${t.uuid}"><a href="/console/invoices/${c.id}" aria-label="${t.open} ${c.uuid ?? c.id}">${c.uuid ?? t.open}</a></td></tr>`,
)}
</tbody></table>`
}
<div class="pager">${paged ? h`<a href="/console/invoices${firstParams.size ? `?${firstParams}` : ''}" id="first-page">${t.first}</a>` : ''}${next ? h`<a href="${query(next)}" id="next-page" rel="next">${t.next}</a>` : ''}</div>
${items.length ? h`<p><a href="/console/invoices.zip${firstParams.size ? `?${firstParams}` : ''}" id="download-zip" download>${t.downloadZip}</a> <small>${t.zipHint}</small></p>` : ''}
</section>`;
}

/** What the detail shows beside the CFDI: each part asked of the API, absent when it has none or refused it. */
export interface DetailParts {
  cancellation?: Cancellation;
  emails?: Email[];
  deliveries?: Delivery[];
  xml?: string;
  sat?: SatStatus;
  /** The API's refusal of the last change, by the form field it names (`_` for the form as a whole), and which form. */
  errors?: { form: 'email' | 'cancel' | 'sat'; fields: Record<string, string> };
  notice?: string;
}

/** The detail: parties, conceptos, totals, the documents; the change a role may make, only to that role. */
function detailContent(v: Viewer, c: Detail, canChange: boolean, parts: DetailParts = {}): Markup {
  const { t } = v;
  const { cancellation } = parts;
  const withdraw =
    canChange && c.status === 'en_cola'
      ? h`<form method="post" action="/console/invoices/${c.id}/withdraw" data-confirm="${t.withdrawConfirm}"><input type="hidden" name="csrf" value="${v.csrf}"><button type="submit" class="danger" id="withdraw">${t.withdraw}</button></form>`
      : '';
  const documents = c.uuid
    ? h`<a href="/console/invoices/${c.id}/xml" id="download-xml" download>${t.downloadXml}</a><a href="/console/invoices/${c.id}/pdf" id="download-pdf" download>${t.downloadPdf}</a><a href="/console/invoices/${c.id}/pdf?inline=1" id="view-pdf" target="_blank" rel="noopener">${t.viewPdf}</a>`
    : h`<span>${t.notStamped}</span>`;
  return h`${parts.notice ? h`<p class="notice" role="status" id="notice">${parts.notice}</p>` : ''}
<section aria-labelledby="h-summary">
<h2 id="h-summary">${t.uuid}: <span id="uuid">${c.uuid ?? '—'}</span></h2>
<dl>
<dt>${t.status}</dt><dd id="status">${t.statuses[c.status] ?? c.status}</dd>
<dt>${t.tipo}</dt><dd>${c.tipo} — ${t.tipos[c.tipo] ?? c.tipo}</dd>
<dt>${t.folio}</dt><dd>${folioOf(c) || '—'}</dd>
<dt>${t.date}</dt><dd>${c.fecha.replace('T', ' ')}</dd>
<dt>${t.stamped}</dt><dd>${c.fecha_timbrado ?? '—'}</dd>
<dt>${t.formaPago}</dt><dd>${c.forma_pago ?? '—'}</dd>
<dt>${t.metodoPago}</dt><dd>${c.metodo_pago ?? '—'}</dd>
<dt>${t.moneda}</dt><dd>${c.moneda}</dd>
</dl>
<div class="actions">${documents}${withdraw}</div>
</section>
<section aria-labelledby="h-parties">
<h2 id="h-parties">${t.emisor} · ${t.receptor}</h2>
<dl>
<dt>${t.emisor}</dt><dd id="emisor">${c.emisor.rfc} — ${c.emisor.nombre} (${c.emisor.regimen_fiscal})</dd>
<dt>${t.receptor}</dt><dd id="receptor">${c.receptor.rfc} — ${c.receptor.nombre}</dd>
</dl>
</section>
<section aria-labelledby="h-conceptos">
<h2 id="h-conceptos">${t.conceptos}</h2>
<table class="list" id="conceptos"><thead><tr><th scope="col">${t.descripcion}</th><th scope="col" class="num">${t.cantidad}</th><th scope="col" class="num">${t.valorUnitario}</th><th scope="col" class="num">${t.importe}</th></tr></thead><tbody>
${c.conceptos.map(
  (k) =>
    h`<tr><td data-label="${t.descripcion}">${k.descripcion}</td><td data-label="${t.cantidad}" class="num">${k.cantidad}</td><td data-label="${t.valorUnitario}" class="num">${money(k.valor_unitario, c.moneda)}</td><td data-label="${t.importe}" class="num">${money(k.importe, c.moneda)}</td></tr>`,
)}
</tbody></table>
<dl id="totals">
<dt>${t.subtotal}</dt><dd>${money(c.subtotal, c.moneda)}</dd>
${c.descuento !== undefined ? h`<dt>${t.discount}</dt><dd>${money(c.descuento, c.moneda)}</dd>` : ''}
${c.total_impuestos_trasladados !== undefined ? h`<dt>${t.transferred}</dt><dd>${money(c.total_impuestos_trasladados, c.moneda)}</dd>` : ''}
${c.total_impuestos_retenidos !== undefined ? h`<dt>${t.withheld}</dt><dd>${money(c.total_impuestos_retenidos, c.moneda)}</dd>` : ''}
<dt>${t.total}</dt><dd id="total">${money(c.total, c.moneda)}</dd>
</dl>
</section>
${complementsContent(v, c)}
${cancellation ? cancellationContent(v, cancellation) : ''}
${c.uuid ? satContent(v, c, parts) : ''}
${c.uuid && canChange && c.status !== 'fallido' ? emailForm(v, c, parts) : ''}
${parts.emails ? emailsContent(v, parts.emails) : ''}
${parts.deliveries ? deliveriesContent(v, parts.deliveries) : ''}
${c.uuid && canChange && c.status === 'vigente' ? cancelForm(v, c, parts) : ''}
${parts.xml ? h`<section aria-labelledby="h-xml"><details id="xml"><summary><h2 id="h-xml">${t.xml}</h2></summary><pre class="xml">${prettyXml(parts.xml)}</pre></details></section>` : ''}
<p><a href="/console/invoices">${t.back}</a></p>`;
}

/** The refusal of a form's field, beside it; and the attributes that tie the field to it. */
const fieldError = (parts: DetailParts, form: 'email' | 'cancel' | 'sat', field: string) => {
  const text = parts.errors?.form === form ? parts.errors.fields[field] : undefined;
  return {
    text: text ? h`<p class="error" role="alert" id="${form}-${field}-error">${text}</p>` : '',
    attrs: text ? h` aria-invalid="true" aria-describedby="${form}-${field}-error"` : h``,
  };
};

/** SAT's status on demand (a read: any role may ask). */
function satContent(v: Viewer, c: Detail, parts: DetailParts): Markup {
  const { t } = v;
  const s = parts.sat;
  const failed = fieldError(parts, 'sat', '_');
  return h`<section aria-labelledby="h-sat" id="sat">
<h2 id="h-sat">${t.satStatus}</h2>
${failed.text}
${
  s
    ? h`<dl id="sat-answer"><dt>${t.satEstado}</dt><dd id="sat-estado">${s.Estado}</dd><dt>${t.satCancelable}</dt><dd>${s.EsCancelable}</dd><dt>${t.satCancelacion}</dt><dd>${s.EstatusCancelacion || '—'}</dd><dt>${t.satCodigo}</dt><dd>${s.CodigoEstatus}</dd><dt>${t.satConsulted}</dt><dd>${s.consulted_at}</dd></dl>`
    : ''
}
<form method="get" action="/console/invoices/${c.id}/sat-status"><button type="submit" class="secondary" id="refresh-sat">${t.refreshSat}</button></form>
</section>`;
}

/** Send by email: to the client's address (the API's default) or the ones typed. */
function emailForm(v: Viewer, c: Detail, parts: DetailParts): Markup {
  const { t } = v;
  const to = fieldError(parts, 'email', 'to');
  const whole = fieldError(parts, 'email', '_');
  return h`<form method="post" action="/console/invoices/${c.id}/email" class="card" id="email-form" aria-labelledby="h-email">
<h2 id="h-email">${t.sendEmail}</h2>
${whole.text}
<input type="hidden" name="csrf" value="${v.csrf}">
<label for="email-to">${t.emailTo}</label>
<input id="email-to" name="to" type="text" inputmode="email" maxlength="2000" autocomplete="off" spellcheck="false"${to.attrs}>
<small>${t.emailToHint}</small>
${to.text}
<div class="actions"><button type="submit" id="send-email">${t.send}</button></div>
</form>`;
}

function emailsContent(v: Viewer, emails: Email[]): Markup {
  const { t } = v;
  return h`<section aria-labelledby="h-emails" id="emails">
<h2 id="h-emails">${t.emails}</h2>
${
  emails.length === 0
    ? h`<p>${t.noEmails}</p>`
    : h`<table class="list"><thead><tr><th scope="col">${t.date}</th><th scope="col">${t.emailTo}</th><th scope="col">${t.status}</th><th scope="col">${t.serverAnswer}</th></tr></thead><tbody>
${emails.map(
  (e) =>
    h`<tr data-email="${e.id}"><td data-label="${t.date}">${e.created_at ?? ''}</td><td data-label="${t.emailTo}">${e.to.join(', ')}</td><td data-label="${t.status}" class="email-status">${t.emailStatuses[e.status] ?? e.status} (${e.attempts})</td><td data-label="${t.serverAnswer}">${e.last_response ?? '—'}</td></tr>`,
)}
</tbody></table>`
}
</section>`;
}

function deliveriesContent(v: Viewer, deliveries: Delivery[]): Markup {
  const { t } = v;
  return h`<section aria-labelledby="h-deliveries" id="deliveries">
<h2 id="h-deliveries">${t.webhookDeliveries}</h2>
${
  deliveries.length === 0
    ? h`<p>${t.noDeliveries}</p>`
    : h`<table class="list"><thead><tr><th scope="col">${t.date}</th><th scope="col">${t.event}</th><th scope="col">URL</th><th scope="col">${t.status}</th><th scope="col">${t.serverAnswer}</th></tr></thead><tbody>
${deliveries.map(
  (d) =>
    h`<tr><td data-label="${t.date}">${d.created_at}</td><td data-label="${t.event}">${d.event}</td><td data-label="URL">${d.url}</td><td data-label="${t.status}" class="delivery-state">${d.state} (${d.attempts})</td><td data-label="${t.serverAnswer}">${d.status_code ?? d.error ?? '—'}</td></tr>`,
)}
</tbody></table>`
}
</section>`;
}

const MOTIVOS = ['01', '02', '03', '04'] as const;

/** Cancel: SAT's motivo with its explanation; 01 needs the UUID of the CFDI that replaces this one. */
function cancelForm(v: Viewer, c: Detail, parts: DetailParts): Markup {
  const { t } = v;
  const motivo = fieldError(parts, 'cancel', 'motivo');
  const folio = fieldError(parts, 'cancel', 'folio_sustitucion');
  const whole = fieldError(parts, 'cancel', '_');
  return h`<form method="post" action="/console/invoices/${c.id}/cancel" class="card" id="cancel-form" aria-labelledby="h-cancel" data-confirm="${t.cancelConfirm}">
<h2 id="h-cancel">${t.cancel}</h2>
${whole.text}
<input type="hidden" name="csrf" value="${v.csrf}">
<fieldset id="motivos"${motivo.attrs}><legend>${t.motivo}</legend>
${MOTIVOS.map(
  (m) =>
    h`<div class="choice"><input type="radio" id="motivo-${m}" name="motivo" value="${m}" required${m === '02' ? h` checked` : ''}><label for="motivo-${m}">${m} — ${t.motivos[m]![0]}</label><small>${t.motivos[m]![1]}</small></div>`,
)}
</fieldset>
${motivo.text}
<label for="folio_sustitucion">${t.folioSustitucion}</label>
<input id="folio_sustitucion" name="folio_sustitucion" maxlength="36" autocomplete="off" spellcheck="false"${folio.attrs}>
<small>${t.folioSustitucionHint}</small>
${folio.text}
<div class="actions"><button type="submit" class="danger" id="cancel">${t.cancel}</button></div>
</form>`;
}

/** A complement in words: which one, and a line of what it says. */
function complementsContent(v: Viewer, c: Detail): Markup {
  const { t } = v;
  const str = (x: unknown) => (x === undefined || x === null ? '' : String(x));
  const lines: Markup[] = [];
  if (Array.isArray(c.pagos)) {
    for (const p of c.pagos) {
      lines.push(
        h`<li><strong>${t.complementNames.pagos}</strong>: ${t.pagoLine(str(p.fecha_pago), `${str(p.monto)} ${str(p.moneda)}`, str(p.forma_pago))}<ul>${(
          p.documentos ?? []
        ).map(
          (doc) =>
            h`<li>${t.paidDocument(str(doc.uuid), str(doc.num_parcialidad), `${str(doc.imp_pagado)} ${str(doc.moneda)}`, str(doc.imp_saldo_insoluto))}</li>`,
        )}</ul></li>`,
      );
    }
  }
  const nomina = c.nomina;
  if (nomina)
    lines.push(
      h`<li><strong>${t.complementNames.nomina}</strong>: ${t.nominaLine(str(nomina.total_percepciones) || '0', str(nomina.total_deducciones) || '0', str(nomina.total_otros_pagos) || '0')}</li>`,
    );
  const cp = c.carta_porte;
  if (cp)
    lines.push(
      h`<li><strong>${t.complementNames.carta_porte}</strong>: ${t.cartaPorteLine(str(cp.id_ccp), str(cp.num_total_mercancias), `${str(cp.peso_bruto_total)} ${str(cp.unidad_peso)}`, str(cp.total_dist_rec))}</li>`,
    );
  const ce = c.comercio_exterior;
  if (ce)
    lines.push(
      h`<li><strong>${t.complementNames.comercio_exterior}</strong>: ${t.comercioExteriorLine(str(ce.incoterm), str(ce.num_mercancias), str(ce.total_usd), str(ce.tipo_cambio_usd))}</li>`,
    );
  const il = c.impuestos_locales;
  if (il)
    lines.push(
      h`<li><strong>${t.complementNames.impuestos_locales}</strong>: ${t.impLocalesLine(str(il.total_de_traslados), str(il.total_de_retenciones))}</li>`,
    );
  for (const k of c.conceptos) {
    const x = k.hidrocarburos_petroliferos;
    if (!x) continue;
    lines.push(
      h`<li><strong>${t.complementNames.hidrocarburos_petroliferos}</strong>: ${k.descripcion} — ${str(x.tipo_permiso)} ${str(x.numero_permiso)} (${str(x.clave_hyp)})</li>`,
    );
  }
  if (lines.length === 0) return h``;
  return h`<section aria-labelledby="h-complements" id="complements"><h2 id="h-complements">${t.complements}</h2><ul>${lines}</ul></section>`;
}

/** The XML with one element per line, indented by depth: for reading (the download is the exact bytes). */
function prettyXml(xml: string): string {
  const tokens = xml.replace(/>\s*</g, '>\n<').split('\n');
  let depth = 0;
  const out: string[] = [];
  for (const token of tokens) {
    const closing = token.startsWith('</');
    if (closing) depth = Math.max(0, depth - 1);
    out.push(`${'  '.repeat(depth)}${token}`);
    const opens = token.startsWith('<') && !closing && !token.startsWith('<?') && !token.startsWith('<!') && !token.endsWith('/>') && !/<\/[^>]+>$/.test(token);
    if (opens) depth++;
  }
  return out.join('\n');
}

/** The latest cancellation request and the CFDI's status moves after stamping, oldest first. */
function cancellationContent(v: Viewer, k: Cancellation): Markup {
  const { t } = v;
  const status = (s: string) => t.statuses[s] ?? s;
  return h`<section aria-labelledby="h-cancellation" id="cancellation">
<h2 id="h-cancellation">${t.cancellation}</h2>
<dl>
<dt>${t.status}</dt><dd id="cancellation-status">${k.status}</dd>
<dt>${t.motivo}</dt><dd id="motivo">${k.motivo}${k.folio_sustitucion ? h` — ${k.folio_sustitucion}` : ''}</dd>
<dt>SAT</dt><dd>${k.estatus_cancelacion ?? '—'}</dd>
${k.motivo_rechazo ? h`<dt>${t.rejection}</dt><dd>${k.motivo_rechazo}</dd>` : ''}
<dt>${t.requestedAt}</dt><dd>${k.requested_at}</dd>
<dt>${t.resolvedAt}</dt><dd>${k.resolved_at ?? '—'}</dd>
</dl>
<h3>${t.history}</h3>
<table class="list" id="history"><thead><tr><th scope="col">${t.date}</th><th scope="col">${t.status}</th><th scope="col">${t.reason}</th></tr></thead><tbody>
${k.historial.map((m) => h`<tr><td data-label="${t.date}">${m.at}</td><td data-label="${t.status}">${status(m.from)} → ${status(m.to)}</td><td data-label="${t.reason}">${m.reason}</td></tr>`)}
</tbody></table>
</section>`;
}

/** The API's refusal of a form, by the form's field it names (`body.to` → `to`); what names no field goes under `_`. */
async function fieldsOf(res: Response, fields: readonly string[], kit: ConsoleKit, viewer: Viewer): Promise<Record<string, string>> {
  const text = await res.text();
  let body: { error?: { message?: string; details?: { field?: string; issue?: string }[] } } = {};
  try {
    body = JSON.parse(text);
  } catch {
    return { _: await kit.refusal(new Response(text, { status: res.status }), viewer.t) };
  }
  const out: Record<string, string> = {};
  for (const d of body.error?.details ?? []) {
    const field = (d.field ?? '').replace(/^(body|query)\./, '').replace(/(\[\d+\]|\.\d+)$/, '');
    const key = fields.includes(field) ? field : '_';
    out[key] = [out[key], key === '_' && d.field ? `${d.field}: ${d.issue}` : d.issue].filter(Boolean).join('; ');
  }
  if (!out._ && Object.keys(out).length === 0) out._ = body.error?.message ?? viewer.t.failed;
  else if (out._ && body.error?.message) out._ = `${body.error.message} — ${out._}`;
  return out;
}

/** The invoices' pages: the list, the detail, the documents, and the changes of an invoice. */
export function mountInvoiceScreens(web: ConsoleRouter, kit: ConsoleKit) {
  const filtersOf = (c: ConsoleContext): Filters => {
    const filters: Filters = {};
    for (const f of FILTERS) {
      const value = c.req.query(f)?.trim();
      if (value) filters[f] = value.slice(0, f === 'q' || f === 'receptor_nombre' ? 254 : 64);
    }
    return filters;
  };

  web.get(
    '/console/invoices',
    kit.signedIn(async (c, session, viewer) => {
      const filters = filtersOf(c);
      const cursor = c.req.query('cursor')?.slice(0, 512);
      const params = apiQuery(filters);
      if (!params.has('limit')) params.set('limit', '25');
      if (cursor) params.set('cursor', cursor);
      const res = await kit.api(c, session, 'GET', `/api/v1/cfdis?${params}`);
      if (res.status !== 200) {
        const error = await kit.refusal(res, viewer.t);
        return kit.htmlPage(
          c,
          page(viewer, viewer.t.invoices, listContent(viewer, filters, [], null, !!cursor, error)),
          res.status === 400 || res.status === 422 ? 400 : 502,
        );
      }
      const body = (await res.json()) as { data: ListItem[]; pagination: { next_cursor: string | null } };
      return kit.htmlPage(c, page(viewer, viewer.t.invoices, listContent(viewer, filters, body.data, body.pagination.next_cursor, !!cursor)));
    }),
  );

  // The ZIP of the list's filters: one request to the API's GET /cfdis/export.zip (its 500 at most, its 413 beyond).
  web.get(
    '/console/invoices.zip',
    kit.signedIn(async (c, session, viewer) => {
      const params = apiQuery(filtersOf(c));
      params.delete('limit');
      const res = await kit.api(c, session, 'GET', `/api/v1/cfdis/export.zip${params.size ? `?${params}` : ''}`);
      return (await kit.refused(c, viewer, res)) ?? kit.passThrough(res);
    }),
  );

  const canChangeAs = (viewer: Viewer) => viewer.role === 'ADMIN' || viewer.role === 'OPERATOR';
  /** The detail page with what the API says of the CFDI, its cancellation, its emails and its XML; 404 when not this tenant's. */
  const detail = async (c: ConsoleContext, session: Session, viewer: Viewer, id: string, parts: DetailParts = {}, status: PageStatus = 200) => {
    const res = await kit.api(c, session, 'GET', `/api/v1/cfdis/${encodeURIComponent(id)}`);
    if (res.status !== 200) return kit.notFound(c, viewer);
    const cfdi = (await res.json()) as Detail;
    const ref = encodeURIComponent(cfdi.id);
    const json = async <T>(path: string): Promise<T | undefined> => {
      const answer = await kit.api(c, session, 'GET', path);
      return answer.status === 200 ? ((await answer.json()) as T) : undefined;
    };
    // The status history is the cancellation's (every move after stamping): asked of a CFDI that had a request.
    const cancelled = cfdi.status === 'cancelacion_pendiente' || cfdi.status === 'cancelado' || cfdi.status === 'vigente';
    const [cancellation, emails, xml] = await Promise.all([
      cancelled && cfdi.uuid ? json<Cancellation>(`/api/v1/cfdis/${ref}/cancellation`) : undefined,
      json<{ data: Email[] }>(`/api/v1/cfdis/${ref}/emails?limit=20`),
      cfdi.uuid ? kit.api(c, session, 'GET', `/api/v1/cfdis/${ref}/xml`).then((r) => (r.status === 200 ? r.text() : undefined)) : undefined,
    ]);
    const all = {
      cancellation,
      emails: emails?.data,
      deliveries: viewer.role === 'ADMIN' ? await deliveriesOf(c, session, cfdi.id) : undefined,
      xml,
      ...parts,
    };
    return kit.htmlPage(c, page(viewer, `${viewer.t.invoices} · ${cfdi.uuid ?? cfdi.id}`, detailContent(viewer, cfdi, canChangeAs(viewer), all)), status);
  };

  /** The webhook deliveries of this CFDI's events, newest first (the API lists them to an ADMIN only): per webhook, by cfdi_id. */
  const deliveriesOf = async (c: ConsoleContext, session: Session, cfdiId: string): Promise<Delivery[] | undefined> => {
    const hooks = await kit.api(c, session, 'GET', '/api/v1/webhooks?limit=100');
    if (hooks.status !== 200) return undefined;
    const { data } = (await hooks.json()) as { data: { id: string; url: string }[] };
    const lists = await Promise.all(
      data.map(async (hook) => {
        const res = await kit.api(
          c,
          session,
          'GET',
          `/api/v1/webhooks/${encodeURIComponent(hook.id)}/deliveries?limit=20&cfdi_id=${encodeURIComponent(cfdiId)}`,
        );
        return res.status === 200 ? ((await res.json()) as { data: Omit<Delivery, 'url'>[] }).data.map((d) => ({ ...d, url: hook.url })) : [];
      }),
    );
    return lists.flat().sort((a, b) => b.created_at.localeCompare(a.created_at));
  };

  web.get(
    '/console/invoices/:id',
    kit.signedIn(async (c, session, viewer) => {
      const done = c.req.query('done');
      const notice = done === 'email' ? viewer.t.emailQueued : done === 'cancel' ? viewer.t.cancelRequested : undefined;
      return detail(c, session, viewer, c.req.param('id') ?? '', { notice });
    }),
  );

  // SAT's status is a read (GET on the API, any role): asked when the button is pressed, shown on the detail.
  web.get(
    '/console/invoices/:id/sat-status',
    kit.signedIn(async (c, session, viewer) => {
      const id = c.req.param('id') ?? '';
      const res = await kit.api(c, session, 'GET', `/api/v1/cfdis/${encodeURIComponent(id)}/sat-status`);
      if (res.status === 404) return kit.notFound(c, viewer);
      if (res.status === 200) return detail(c, session, viewer, id, { sat: (await res.json()) as SatStatus });
      return detail(c, session, viewer, id, { errors: { form: 'sat', fields: await fieldsOf(res, [], kit, viewer) } }, res.status === 400 ? 400 : 502);
    }),
  );

  for (const format of ['xml', 'pdf'] as const) {
    web.get(
      `/console/invoices/:id/${format}`,
      kit.signedIn(async (c, session, viewer) => {
        const res = await kit.api(c, session, 'GET', `/api/v1/cfdis/${encodeURIComponent(c.req.param('id') ?? '')}/${format}`);
        const refused = await kit.refused(c, viewer, res);
        if (refused) return refused;
        const out = kit.passThrough(res);
        // Shown in the browser's own viewer (a new tab: our pages cannot be framed), not saved.
        if (format === 'pdf' && c.req.query('inline') === '1') {
          out.headers.set('Content-Disposition', (out.headers.get('content-disposition') ?? 'attachment').replace(/^attachment/, 'inline'));
        }
        return out;
      }),
    );
  }

  web.post(
    '/console/invoices/:id/email',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const id = c.req.param('id') ?? '';
        const to = (form.to ?? '')
          .split(/[,;\s]+/)
          .map((x) => x.trim())
          .filter(Boolean);
        const res = await kit.api(c, session, 'POST', `/api/v1/cfdis/${encodeURIComponent(id)}/email`, to.length ? { to } : {});
        if (res.status === 202) return kit.redirect(c, `/console/invoices/${encodeURIComponent(id)}?done=email`);
        if (res.status === 400 || res.status === 409 || res.status === 429) {
          return detail(c, session, viewer, id, { errors: { form: 'email', fields: await fieldsOf(res, ['to'], kit, viewer) } }, res.status);
        }
        return (await kit.refused(c, viewer, res)) ?? kit.redirect(c, `/console/invoices/${encodeURIComponent(id)}`);
      }),
    ),
  );

  web.post(
    '/console/invoices/:id/cancel',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const id = c.req.param('id') ?? '';
        const folio = form.folio_sustitucion?.trim();
        const body = { motivo: form.motivo ?? '', ...(folio ? { folio_sustitucion: folio } : {}) };
        const res = await kit.api(c, session, 'POST', `/api/v1/cfdis/${encodeURIComponent(id)}/cancel`, body);
        if (res.status === 200 || res.status === 202) return kit.redirect(c, `/console/invoices/${encodeURIComponent(id)}?done=cancel`);
        if (res.status === 400 || res.status === 409 || res.status === 422 || res.status === 503) {
          const fields = await fieldsOf(res, ['motivo', 'folio_sustitucion'], kit, viewer);
          return detail(c, session, viewer, id, { errors: { form: 'cancel', fields } }, res.status === 503 ? 502 : res.status === 422 ? 400 : res.status);
        }
        return (await kit.refused(c, viewer, res)) ?? kit.redirect(c, `/console/invoices/${encodeURIComponent(id)}`);
      }),
    ),
  );

  web.post(
    '/console/invoices/:id/withdraw',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        const id = c.req.param('id') ?? '';
        const res = await kit.api(c, session, 'POST', `/api/v1/cfdis/${encodeURIComponent(id)}/withdraw`);
        // A CFDI no longer queued (400) is, for this page, one that is not there to withdraw.
        if (res.status === 400) return kit.notFound(c, viewer);
        return (await kit.refused(c, viewer, res)) ?? kit.redirect(c, `/console/invoices/${encodeURIComponent(id)}`);
      }),
    ),
  );
}
