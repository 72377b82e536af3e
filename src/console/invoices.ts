import type { ConsoleKit, ConsoleRouter } from './kit.ts';
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
  conceptos: { descripcion: string; cantidad: number; valor_unitario: number; importe: number; descuento?: number }[];
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

/** The API's filters of GET /cfdis that the list offers, by their query names (and its page size, kept across pages). */
const FILTERS = ['receptor_rfc', 'serie', 'status', 'tipo', 'desde', 'hasta', 'limit'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

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
${input('receptor_rfc', t.receptorRfc, filters.receptor_rfc, h`maxlength="13" autocomplete="off" spellcheck="false"`)}
${input('serie', t.serie, filters.serie, h`maxlength="25" autocomplete="off"`)}
${select('status', t.status, STATUSES, t.statuses, filters.status, t.any)}
${select('tipo', t.tipo, TIPOS, t.tipos, filters.tipo, t.any)}
${input('desde', t.from, filters.desde, h`type="date"`)}
${input('hasta', t.to, filters.hasta, h`type="date"`)}
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
</section>`;
}

/** The detail: parties, conceptos, totals, the documents; the change a role may make, only to that role. */
function detailContent(v: Viewer, c: Detail, canChange: boolean, cancellation?: Cancellation): Markup {
  const { t } = v;
  const withdraw =
    canChange && c.status === 'en_cola'
      ? h`<form method="post" action="/console/invoices/${c.id}/withdraw" data-confirm="${t.withdrawConfirm}"><input type="hidden" name="csrf" value="${v.csrf}"><button type="submit" class="danger" id="withdraw">${t.withdraw}</button></form>`
      : '';
  const documents = c.uuid
    ? h`<a href="/console/invoices/${c.id}/xml" id="download-xml" download>${t.downloadXml}</a><a href="/console/invoices/${c.id}/pdf" id="download-pdf" download>${t.downloadPdf}</a>`
    : h`<span>${t.notStamped}</span>`;
  return h`<section aria-labelledby="h-summary">
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
${cancellation ? cancellationContent(v, cancellation) : ''}
<p><a href="/console/invoices">${t.back}</a></p>`;
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

/** The invoices' pages: the list, the detail, the documents, and the changes of an invoice. */
export function mountInvoiceScreens(web: ConsoleRouter, kit: ConsoleKit) {
  web.get(
    '/console/invoices',
    kit.signedIn(async (c, session, viewer) => {
      const filters: Filters = {};
      for (const f of FILTERS) {
        const value = c.req.query(f)?.trim();
        if (value) filters[f] = value.slice(0, 64);
      }
      const cursor = c.req.query('cursor')?.slice(0, 512);
      const params = new URLSearchParams({ limit: '25', ...filters, ...(cursor ? { cursor } : {}) });
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

  web.get(
    '/console/invoices/:id',
    kit.signedIn(async (c, session, viewer) => {
      const res = await kit.api(c, session, 'GET', `/api/v1/cfdis/${encodeURIComponent(c.req.param('id') ?? '')}`);
      if (res.status !== 200) return kit.notFound(c, viewer);
      const cfdi = (await res.json()) as Detail;
      const canChange = viewer.role === 'ADMIN' || viewer.role === 'OPERATOR';
      // The status history is the cancellation's (every move after stamping): asked only of a CFDI that has one.
      const cancelled = cfdi.status === 'cancelacion_pendiente' || cfdi.status === 'cancelado';
      const history = cancelled ? await kit.api(c, session, 'GET', `/api/v1/cfdis/${encodeURIComponent(cfdi.id)}/cancellation`) : undefined;
      const cancellation = history?.status === 200 ? ((await history.json()) as Cancellation) : undefined;
      return kit.htmlPage(c, page(viewer, `${viewer.t.invoices} · ${cfdi.uuid ?? cfdi.id}`, detailContent(viewer, cfdi, canChange, cancellation)));
    }),
  );

  for (const format of ['xml', 'pdf'] as const) {
    web.get(
      `/console/invoices/:id/${format}`,
      kit.signedIn(async (c, session, viewer) => {
        const res = await kit.api(c, session, 'GET', `/api/v1/cfdis/${encodeURIComponent(c.req.param('id') ?? '')}/${format}`);
        return (await kit.refused(c, viewer, res)) ?? kit.passThrough(res);
      }),
    );
  }

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
