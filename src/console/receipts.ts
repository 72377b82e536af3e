import type { ConsoleKit, ConsoleRouter } from './kit.ts';
import { h, type Markup, page, type Viewer } from './page.ts';
import { csrfField, fieldErrors, fieldWithIssue, formStatus, keyChoice, pager } from './forms.ts';

/** GET /api/v1/receipts's item, as far as the list shows it. */
interface Receipt {
  id: string;
  folio: string;
  fecha: string;
  forma_pago: string;
  moneda: string;
  total: number;
  status: string;
  self_invoice_url: string | null;
  expires_at: string;
  cfdi_id: string | null;
  invoiced_by: string | null;
}

/** GET /api/v1/receipts/settings. */
interface Settings {
  auto_global_invoice: string | null;
  auto_global_invoice_through: string | null;
}

const PERIODS = ['01', '02', '03', '04', '05'];
const STATUSES = ['open', 'invoiced', 'cancelled'];
const FILTERS = ['status', 'desde', 'hasta', 'limit'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const money = (n: number, moneda: string) => `${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })} ${moneda}`;

function settingsContent(v: Viewer, s: Settings, error?: { message: string; fields: Record<string, string> }, saved = false): Markup {
  const { t } = v;
  const current = s.auto_global_invoice ? `${s.auto_global_invoice} — ${t.rcpPeriods[s.auto_global_invoice] ?? ''}` : t.rcpNever;
  // Only an ADMIN may change it (PATCH /receipts/settings): the others see it.
  const form =
    v.role === 'ADMIN'
      ? h`<form method="post" action="/console/receipts/settings" id="settings">
${csrfField(v)}
<div class="grid">
${keyChoice('auto_global_invoice', t.rcpAuto, PERIODS, t.rcpPeriods, s.auto_global_invoice ?? undefined, t.rcpNever, error?.fields.auto_global_invoice)}
<div class="actions"><button type="submit" id="save-settings">${t.save}</button></div>
</div>
</form>`
      : '';
  return h`<section aria-labelledby="h-settings">
<h2 id="h-settings">${t.rcpSettings}</h2>
${saved ? h`<p class="notice" role="status" id="saved">${t.saved}</p>` : ''}
${error ? h`<p class="error" role="alert" id="form-error">${error.message || t.failed}</p>` : ''}
<dl>
<dt>${t.rcpAuto}</dt><dd id="auto-global">${current}</dd>
<dt>${t.rcpThrough}</dt><dd id="auto-through">${s.auto_global_invoice_through ?? '—'}</dd>
</dl>
<p class="hint">${t.rcpAutoHint}</p>
${form}
</section>`;
}

function listContent(v: Viewer, filters: Filters, items: Receipt[], next: string | null, paged: boolean, error?: string): Markup {
  const { t } = v;
  const params = new URLSearchParams();
  for (const f of FILTERS) if (filters[f]) params.set(f, filters[f]!);
  return h`<form method="get" action="/console/receipts" class="card" id="filters" role="search" aria-label="${t.filters}">
<div class="grid">
${keyChoice('status', t.status, STATUSES, t.rcpStatuses, filters.status, t.any)}
${fieldWithIssue('desde', t.from, filters.desde, h`type="date"`)}
${fieldWithIssue('hasta', t.to, filters.hasta, h`type="date"`)}
<div class="actions"><button type="submit" id="search">${t.search}</button><a href="/console/receipts">${t.clear}</a></div>
</div>
</form>
${error ? h`<p class="error" role="alert" id="list-error">${error}</p>` : ''}
<section aria-labelledby="h-receipts">
<h2 id="h-receipts">${t.receipts}</h2>
${
  items.length === 0
    ? h`<p id="empty">${t.rcpNone}</p>`
    : h`<table class="list" id="receipts"><thead><tr><th scope="col">${t.folio}</th><th scope="col">${t.date}</th><th scope="col">${t.formaPago}</th><th scope="col" class="num">${t.total}</th><th scope="col">${t.status}</th><th scope="col">${t.rcpInvoice}</th><th scope="col">${t.rcpExpires}</th></tr></thead><tbody>
${items.map(
  (r) =>
    h`<tr data-id="${r.id}"><td data-label="${t.folio}">${r.folio}</td><td data-label="${t.date}">${r.fecha.replace('T', ' ')}</td><td data-label="${t.formaPago}">${r.forma_pago}</td><td data-label="${t.total}" class="num">${money(r.total, r.moneda)}</td><td data-label="${t.status}">${t.rcpStatuses[r.status] ?? r.status}${r.invoiced_by ? h` (${t.rcpBy[r.invoiced_by] ?? r.invoiced_by})` : ''}</td><td data-label="${t.rcpInvoice}">${r.cfdi_id ? h`<a href="/console/invoices/${r.cfdi_id}">${t.open}</a>` : '—'}</td><td data-label="${t.rcpExpires}">${r.expires_at}</td></tr>`,
)}
</tbody></table>`
}
${pager(v, '/console/receipts', params, next, paged)}
</section>`;
}

/** Receipts (tickets) and the self-invoicing settings: the automatic global invoice. */
export function mountReceiptScreens(web: ConsoleRouter, kit: ConsoleKit) {
  web.get(
    '/console/receipts',
    kit.signedIn(async (c, session, viewer) => {
      const filters: Filters = {};
      for (const f of FILTERS) {
        const value = c.req.query(f)?.trim();
        if (value) filters[f] = value.slice(0, 64);
      }
      const cursor = c.req.query('cursor')?.slice(0, 512);
      const params = new URLSearchParams({ limit: '25', ...filters, ...(cursor ? { cursor } : {}) });
      const [settingsRes, listRes] = await Promise.all([
        kit.api(c, session, 'GET', '/api/v1/receipts/settings'),
        kit.api(c, session, 'GET', `/api/v1/receipts?${params}`),
      ]);
      const refused = settingsRes.status !== 200 ? await kit.refused(c, viewer, settingsRes) : undefined;
      if (refused) return refused;
      const settings = (await settingsRes.json()) as Settings;
      const saved = c.req.query('saved') !== undefined;
      if (listRes.status !== 200) {
        const error = await kit.refusal(listRes, viewer.t);
        const content = h`${settingsContent(viewer, settings, undefined, saved)}${listContent(viewer, filters, [], null, !!cursor, error)}`;
        return kit.htmlPage(c, page(viewer, viewer.t.receipts, content), listRes.status === 400 ? 400 : 502);
      }
      const list = (await listRes.json()) as { data: Receipt[]; pagination: { next_cursor: string | null } };
      const content = h`${settingsContent(viewer, settings, undefined, saved)}${listContent(viewer, filters, list.data, list.pagination.next_cursor, !!cursor)}`;
      return kit.htmlPage(c, page(viewer, viewer.t.receipts, content));
    }),
  );

  web.post(
    '/console/receipts/settings',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const value = (form.auto_global_invoice ?? '').trim();
        const res = await kit.api(c, session, 'PATCH', '/api/v1/receipts/settings', { auto_global_invoice: value === '' ? null : value });
        if (res.status === 200) return kit.redirect(c, '/console/receipts?saved');
        if (res.status === 403) return (await kit.refused(c, viewer, res))!;
        const error = await fieldErrors(res);
        const current = await kit.api(c, session, 'GET', '/api/v1/receipts/settings');
        const settings = current.status === 200 ? ((await current.json()) as Settings) : { auto_global_invoice: null, auto_global_invoice_through: null };
        return kit.htmlPage(c, page(viewer, viewer.t.receipts, settingsContent(viewer, settings, error)), formStatus(res.status));
      }),
    ),
  );
}
