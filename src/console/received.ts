import { csrfField, fieldErrors, fieldWithIssue, formStatus, keyChoice, pager } from './forms.ts';
import type { ConsoleContext, ConsoleKit, ConsoleRouter } from './kit.ts';
import { h, type Markup, page, type Viewer } from './page.ts';

/** GET /api/v1/received-cfdis's item, as far as the inbox shows it. */
interface ReceivedItem {
  id: string;
  uuid: string | null;
  version: string;
  validation: string;
  emisor_rfc: string | null;
  emisor_nombre: string | null;
  receptor_rfc: string | null;
  fecha: string | null;
  tipo: string | null;
  metodo_pago: string | null;
  forma_pago: string | null;
  moneda: string | null;
  total: string | null;
  serie: string | null;
  folio: string | null;
  source: string;
  sat_status: string | null;
  efos_69b: string | null;
  reconciliation: string | null;
  created_at: string;
}

/** GET /api/v1/received-cfdis/{id}: every check and what SAT said. */
interface ReceivedDetail extends ReceivedItem {
  checks: { name: string; ok: boolean; detail?: string }[];
  sha256: string;
  es_cancelable: string | null;
  estatus_cancelacion: string | null;
  validacion_efos: string | null;
  sat_checked_at: string | null;
  amount_paid: string | null;
}

/** POST /api/v1/received-cfdis's outcome per document. */
interface Outcome {
  file: string;
  result: string;
  id?: string;
  uuid?: string;
  reasons: { check: string; detail?: string }[];
}

/** GET /api/v1/sat-downloads's item. */
interface SatDownload {
  id: string;
  direction: string;
  kind: string;
  desde: string;
  hasta: string;
  tipo: string | null;
  rfc: string | null;
  request_number: number;
  status: string;
  id_solicitud: string | null;
  cod_estatus: string | null;
  estado_solicitud: number | null;
  codigo_estado_solicitud: string | null;
  mensaje: string | null;
  numero_cfdis: number | null;
  packages: string[];
  attempts: number;
  error: string | null;
  origin: string;
  requested_at: string | null;
  checked_at: string | null;
  finished_at: string | null;
  created_at: string;
}

/** The roles that may change something of this screen (the API decides; this only hides buttons it would refuse). */
const mayOperate = (v: Viewer) => v.role === 'ADMIN' || v.role === 'OPERATOR';

/** The filters of GET /received-cfdis the inbox offers, by their query names. */
const FILTERS = ['emisor_rfc', 'desde', 'hasta', 'validation', 'sat_status', 'efos', 'reconciliation', 'limit'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;
const VALIDATIONS = ['validated', 'invalid', 'not_validated'];
const SAT_STATUSES = ['vigente', 'cancelado', 'no_encontrado'];
const RECONCILIATIONS = ['sin_pago', 'parcial', 'completo', 'exceso'];

const label = (names: Record<string, string>, key: string | null) => (key === null ? '—' : (names[key] ?? key));

function uploadForm(v: Viewer): Markup {
  const { t } = v;
  if (!mayOperate(v)) return h``;
  return h`<form method="post" action="/console/received/upload" enctype="multipart/form-data" class="card" id="upload">
${csrfField(v)}
<div class="grid">
<div><label for="f-file">${t.rcvFile}</label><input id="f-file" name="file" type="file" accept=".xml,.zip,application/xml,text/xml,application/zip" required></div>
<div class="actions"><button type="submit" id="upload-button">${t.rcvUpload}</button></div>
</div>
<p class="hint">${t.rcvUploadHint}</p>
</form>`;
}

function inboxContent(v: Viewer, filters: Filters, items: ReceivedItem[], next: string | null, paged: boolean, error?: string): Markup {
  const { t } = v;
  const params = new URLSearchParams();
  for (const f of FILTERS) if (filters[f]) params.set(f, filters[f]!);
  return h`<p class="actions"><a href="/console/sat-downloads" id="sat-downloads-link">${t.satDownloads}</a></p>
${uploadForm(v)}
<form method="get" action="/console/received" class="card" id="filters" role="search" aria-label="${t.filters}">
<div class="grid">
${fieldWithIssue('emisor_rfc', t.rcvEmisorRfc, filters.emisor_rfc, h`maxlength="13" autocomplete="off" spellcheck="false"`)}
${fieldWithIssue('desde', t.from, filters.desde, h`type="date"`)}
${fieldWithIssue('hasta', t.to, filters.hasta, h`type="date"`)}
${keyChoice('validation', t.rcvValidation, VALIDATIONS, t.rcvValidations, filters.validation, t.any)}
${keyChoice('sat_status', t.rcvSatStatus, SAT_STATUSES, t.rcvSatStatuses, filters.sat_status, t.any)}
${keyChoice('efos', t.rcvEfos, ['true', 'false'], t.rcvEfosFilter, filters.efos, t.any)}
${keyChoice('reconciliation', t.rcvReconciliation, RECONCILIATIONS, t.rcvReconciliations, filters.reconciliation, t.any)}
<div class="actions"><button type="submit" id="search">${t.search}</button><a href="/console/received">${t.clear}</a></div>
</div>
</form>
${error ? h`<p class="error" role="alert" id="list-error">${error}</p>` : ''}
<section>
${
  items.length === 0
    ? h`<p id="empty">${t.rcvNone}</p>`
    : h`<table class="list" id="received"><thead><tr><th scope="col">${t.date}</th><th scope="col">${t.emisor}</th><th scope="col">${t.tipo}</th><th scope="col" class="num">${t.total}</th><th scope="col">${t.rcvValidation}</th><th scope="col">${t.rcvSatStatus}</th><th scope="col">${t.rcvEfos}</th><th scope="col">${t.rcvReconciliation}</th><th scope="col">${t.uuid}</th></tr></thead><tbody>
${items.map(
  (r) =>
    h`<tr data-id="${r.id}"><td data-label="${t.date}">${(r.fecha ?? '—').replace('T', ' ')}</td><td data-label="${t.emisor}">${r.emisor_rfc ?? '—'}<br>${r.emisor_nombre ?? ''}</td><td data-label="${t.tipo}">${r.tipo ? (t.tipos[r.tipo] ?? r.tipo) : '—'}</td><td data-label="${t.total}" class="num">${r.total ?? '—'} ${r.moneda ?? ''}</td><td data-label="${t.rcvValidation}" class="v-${r.validation}">${label(t.rcvValidations, r.validation)}</td><td data-label="${t.rcvSatStatus}">${label(t.rcvSatStatuses, r.sat_status)}</td><td data-label="${t.rcvEfos}">${r.efos_69b ? h`<strong class="flag">${label(t.rcvEfosStates, r.efos_69b)}</strong>` : '—'}</td><td data-label="${t.rcvReconciliation}">${label(t.rcvReconciliations, r.reconciliation)}</td><td data-label="${t.uuid}"><a href="/console/received/${r.id}" aria-label="${t.open} ${r.uuid ?? r.id}">${r.uuid ?? t.open}</a></td></tr>`,
)}
</tbody></table>`
}
${pager(v, '/console/received', params, next, paged)}
</section>`;
}

function receivedDetailContent(v: Viewer, r: ReceivedDetail): Markup {
  const { t } = v;
  const refresh =
    mayOperate(v) && r.uuid
      ? h`<form method="post" action="/console/received/${r.id}/refresh">${csrfField(v)}<button type="submit" class="secondary" id="refresh">${t.rcvRefresh}</button></form>`
      : '';
  return h`<section aria-labelledby="h-facts">
<h2 id="h-facts">${t.uuid}: <span id="uuid">${r.uuid ?? '—'}</span></h2>
<dl>
<dt>${t.rcvValidation}</dt><dd id="validation" class="v-${r.validation}">${label(t.rcvValidations, r.validation)}</dd>
<dt>${t.emisor}</dt><dd id="emisor">${r.emisor_rfc ?? '—'} — ${r.emisor_nombre ?? ''}</dd>
<dt>${t.receptor}</dt><dd>${r.receptor_rfc ?? '—'}</dd>
<dt>${t.date}</dt><dd>${(r.fecha ?? '—').replace('T', ' ')}</dd>
<dt>${t.tipo}</dt><dd>${r.tipo ? `${r.tipo} — ${t.tipos[r.tipo] ?? r.tipo}` : '—'}</dd>
<dt>${t.folio}</dt><dd>${[r.serie, r.folio].filter(Boolean).join('-') || '—'}</dd>
<dt>${t.metodoPago}</dt><dd>${r.metodo_pago ?? '—'}</dd>
<dt>${t.total}</dt><dd id="total">${r.total ?? '—'} ${r.moneda ?? ''}</dd>
<dt>${t.rcvSource}</dt><dd>${label(t.rcvSources, r.source)}</dd>
<dt>SHA-256</dt><dd class="mono">${r.sha256}</dd>
</dl>
<div class="actions"><a href="/console/received/${r.id}/xml" id="download-xml" download>${t.downloadXml}</a><a href="/console/received/${r.id}/pdf" id="download-pdf" download>${t.downloadPdf}</a>${refresh}</div>
</section>
<section aria-labelledby="h-sat">
<h2 id="h-sat">SAT</h2>
<dl>
<dt>${t.rcvSatStatus}</dt><dd id="sat-status">${label(t.rcvSatStatuses, r.sat_status)}</dd>
<dt>${t.rcvCancelable}</dt><dd>${r.es_cancelable ?? '—'}</dd>
<dt>${t.rcvCancellationStatus}</dt><dd>${r.estatus_cancelacion ?? '—'}</dd>
<dt>${t.rcvCheckedAt}</dt><dd id="sat-checked-at">${r.sat_checked_at ?? t.rcvNotAsked}</dd>
<dt>${t.rcvEfos}</dt><dd id="efos">${r.efos_69b ? h`<strong class="flag">${label(t.rcvEfosStates, r.efos_69b)}</strong>` : t.rcvNotListed}</dd>
<dt>${t.rcvReconciliation}</dt><dd id="reconciliation">${label(t.rcvReconciliations, r.reconciliation)}${r.amount_paid ? h` (${t.rcvPaid}: ${r.amount_paid})` : ''}</dd>
</dl>
</section>
<section aria-labelledby="h-checks">
<h2 id="h-checks">${t.rcvChecks}</h2>
<table class="list" id="checks"><thead><tr><th scope="col">${t.rcvCheck}</th><th scope="col">${t.rcvResult}</th><th scope="col">${t.rcvDetail}</th></tr></thead><tbody>
${r.checks.map(
  (k) =>
    h`<tr data-check="${k.name}"><td data-label="${t.rcvCheck}">${t.rcvCheckNames[k.name] ?? k.name} <code>${k.name}</code></td><td data-label="${t.rcvResult}" class="${k.ok ? 'ok' : 'bad'}">${k.ok ? t.rcvPassed : t.rcvFailed}</td><td data-label="${t.rcvDetail}">${k.detail ?? ''}</td></tr>`,
)}
</tbody></table>
</section>
<p><a href="/console/received">${t.rcvBack}</a></p>`;
}

function outcomesContent(v: Viewer, outcomes: Outcome[]): Markup {
  const { t } = v;
  return h`<section aria-labelledby="h-outcomes">
<h2 id="h-outcomes">${t.rcvOutcomes}</h2>
<table class="list" id="outcomes"><thead><tr><th scope="col">${t.rcvFile}</th><th scope="col">${t.rcvResult}</th><th scope="col">${t.uuid}</th><th scope="col">${t.rcvReasons}</th></tr></thead><tbody>
${outcomes.map(
  (o) =>
    h`<tr><td data-label="${t.rcvFile}">${o.file}</td><td data-label="${t.rcvResult}" class="r-${o.result}">${t.rcvResults[o.result] ?? o.result}</td><td data-label="${t.uuid}">${o.id ? h`<a href="/console/received/${o.id}">${o.uuid ?? o.id}</a>` : (o.uuid ?? '—')}</td><td data-label="${t.rcvReasons}">${o.reasons.map((r) => h`<div><code>${r.check}</code>${r.detail ? h`: ${r.detail}` : ''}</div>`)}</td></tr>`,
)}
</tbody></table>
</section>
<p><a href="/console/received" id="to-inbox">${t.rcvBack}</a></p>`;
}

const DIRECTIONS = ['received', 'issued'];
const KINDS = ['xml', 'metadata'];
const TIPOS = ['I', 'E', 'T', 'N', 'P'];

function satRequestForm(v: Viewer, values: Record<string, string>, error?: { message: string; fields: Record<string, string> }): Markup {
  const { t } = v;
  if (!mayOperate(v)) return h``;
  const e = error?.fields ?? {};
  return h`<form method="post" action="/console/sat-downloads" class="card" id="sat-request">
${csrfField(v)}
<h2>${t.satRequest}</h2>
<div class="grid">
${keyChoice('direction', t.satDirection, DIRECTIONS, t.satDirections, values.direction, undefined, e.direction)}
${keyChoice('kind', t.satKind, KINDS, t.satKinds, values.kind, undefined, e.kind)}
${fieldWithIssue('desde', t.from, values.desde, h`type="date" required`, e.desde)}
${fieldWithIssue('hasta', t.to, values.hasta, h`type="date" required`, e.hasta)}
${keyChoice('tipo', t.tipo, TIPOS, t.tipos, values.tipo, t.any, e.tipo)}
${fieldWithIssue('rfc', t.satRfc, values.rfc, h`maxlength="13" autocomplete="off" spellcheck="false"`, e.rfc)}
<div class="actions"><button type="submit" id="sat-request-button">${t.satRequestButton}</button></div>
</div>
<p class="hint">${t.satFielHint}</p>
</form>`;
}

function satListContent(
  v: Viewer,
  items: SatDownload[],
  next: string | null,
  paged: boolean,
  values: Record<string, string> = {},
  error?: { message: string; fields: Record<string, string> },
): Markup {
  const { t } = v;
  const problems = error ? Object.entries(error.fields).map(([f, issue]) => h`<br><code>${f}</code>: ${issue}`) : '';
  return h`${error ? h`<p class="error" role="alert" id="form-error">${error.message || t.failed}${problems}</p>` : ''}
${satRequestForm(v, values, error)}
<section>
${
  items.length === 0
    ? h`<p id="empty">${t.satNone}</p>`
    : h`<table class="list" id="sat-downloads"><thead><tr><th scope="col">${t.satPeriod}</th><th scope="col">${t.satDirection}</th><th scope="col">${t.satKind}</th><th scope="col">${t.status}</th><th scope="col" class="num">${t.satCount}</th><th scope="col">${t.open}</th></tr></thead><tbody>
${items.map(
  (d) =>
    h`<tr data-id="${d.id}"><td data-label="${t.satPeriod}">${d.desde} — ${d.hasta}</td><td data-label="${t.satDirection}">${label(t.satDirections, d.direction)}</td><td data-label="${t.satKind}">${label(t.satKinds, d.kind)}</td><td data-label="${t.status}">${label(t.satStatuses, d.status)}</td><td data-label="${t.satCount}" class="num">${d.numero_cfdis ?? '—'}</td><td data-label="${t.open}"><a href="/console/sat-downloads/${d.id}">${d.id}</a></td></tr>`,
)}
</tbody></table>`
}
${pager(v, '/console/sat-downloads', new URLSearchParams(), next, paged)}
</section>
<p><a href="/console/received">${t.rcvBack}</a></p>`;
}

/** SAT's EstadoSolicitud 1–6 as a progress of the request's life. */
const STEPS = ['requested', 'accepted', 'in_progress', 'finished', 'downloaded'];

function satDetailContent(v: Viewer, d: SatDownload): Markup {
  const { t } = v;
  const step = STEPS.indexOf(d.status);
  const progress =
    step >= 0
      ? h`<progress id="progress" max="${STEPS.length - 1}" value="${step}" aria-label="${t.satProgress}">${step}/${STEPS.length - 1}</progress>`
      : h`<strong id="progress" class="flag">${label(t.satStatuses, d.status)}</strong>`;
  return h`<section aria-labelledby="h-satdl">
<h2 id="h-satdl">${t.satDownload}: ${d.id}</h2>
<p>${progress} <span id="sat-status" data-status="${d.status}">${label(t.satStatuses, d.status)}</span></p>
<dl>
<dt>${t.satPeriod}</dt><dd>${d.desde} — ${d.hasta}</dd>
<dt>${t.satDirection}</dt><dd>${label(t.satDirections, d.direction)}</dd>
<dt>${t.satKind}</dt><dd>${label(t.satKinds, d.kind)}</dd>
<dt>${t.tipo}</dt><dd>${d.tipo ?? '—'}</dd>
<dt>${t.satRfc}</dt><dd>${d.rfc ?? '—'}</dd>
<dt>${t.satRequestNumber}</dt><dd>${d.request_number}</dd>
<dt>IdSolicitud</dt><dd class="mono">${d.id_solicitud ?? '—'}</dd>
<dt>EstadoSolicitud</dt><dd>${d.estado_solicitud ?? '—'}</dd>
<dt>CodEstatus</dt><dd>${d.cod_estatus ?? '—'}</dd>
<dt>${t.satMessage}</dt><dd>${d.mensaje ?? '—'}</dd>
<dt>${t.satCount}</dt><dd id="numero-cfdis">${d.numero_cfdis ?? '—'}</dd>
<dt>${t.satPackages}</dt><dd>${d.packages.length}</dd>
<dt>${t.satAttempts}</dt><dd>${d.attempts}</dd>
${d.error ? h`<dt>${t.rcvDetail}</dt><dd id="sat-error">${d.error}</dd>` : ''}
<dt>${t.satOrigin}</dt><dd>${d.origin}</dd>
<dt>${t.requestedAt}</dt><dd>${d.requested_at ?? '—'}</dd>
<dt>${t.satCheckedAt}</dt><dd>${d.checked_at ?? '—'}</dd>
<dt>${t.resolvedAt}</dt><dd>${d.finished_at ?? '—'}</dd>
</dl>
</section>
<p><a href="/console/sat-downloads">${t.satBack}</a></p>`;
}

const idOf = (c: ConsoleContext) => encodeURIComponent(c.req.param('id') ?? '');

/** The received invoices' inbox, its detail and upload, and the SAT download requests. */
export function mountReceivedScreens(web: ConsoleRouter, kit: ConsoleKit) {
  web.get(
    '/console/received',
    kit.signedIn(async (c, session, viewer) => {
      const filters: Filters = {};
      for (const f of FILTERS) {
        const value = c.req.query(f)?.trim();
        if (value) filters[f] = value.slice(0, 64);
      }
      const cursor = c.req.query('cursor')?.slice(0, 512);
      const params = new URLSearchParams({ limit: '25', ...filters, ...(cursor ? { cursor } : {}) });
      const res = await kit.api(c, session, 'GET', `/api/v1/received-cfdis?${params}`);
      const title = viewer.t.received;
      if (res.status !== 200) {
        const error = await kit.refusal(res, viewer.t);
        return kit.htmlPage(c, page(viewer, title, inboxContent(viewer, filters, [], null, !!cursor, error)), res.status === 400 ? 400 : 502);
      }
      const body = (await res.json()) as { data: ReceivedItem[]; pagination: { next_cursor: string | null } };
      return kit.htmlPage(c, page(viewer, title, inboxContent(viewer, filters, body.data, body.pagination.next_cursor, !!cursor)));
    }),
  );

  web.post(
    '/console/received/upload',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        const file = (await c.req.parseBody())['file'];
        const title = viewer.t.received;
        if (!(file instanceof File) || file.size === 0) {
          const error = `file: ${viewer.t.rcvChooseFile}`;
          return kit.htmlPage(c, page(viewer, title, h`<p class="error" role="alert" id="form-error">${error}</p>${uploadForm(viewer)}`), 400);
        }
        // Sent on as the API's multipart upload, the file's own name kept: the API names each outcome by it (a ZIP's
        // entries as `name.zip/entry.xml`) and tells an XML from a ZIP by its bytes.
        const upload = new FormData();
        upload.append('file', file, file.name || 'upload.xml');
        const encoded = new Response(upload);
        const type = encoded.headers.get('content-type') ?? 'multipart/form-data';
        const res = await kit.apiRaw(c, session, 'POST', '/api/v1/received-cfdis', await encoded.arrayBuffer(), type);
        const refused = await kit.refused(c, viewer, res);
        if (refused) return refused;
        const { data } = (await res.json()) as { data: Outcome[] };
        return kit.htmlPage(c, page(viewer, title, outcomesContent(viewer, data)));
      }),
    ),
  );

  web.get(
    '/console/received/:id',
    kit.signedIn(async (c, session, viewer) => {
      const res = await kit.api(c, session, 'GET', `/api/v1/received-cfdis/${idOf(c)}`);
      if (res.status !== 200) return kit.notFound(c, viewer);
      const r = (await res.json()) as ReceivedDetail;
      return kit.htmlPage(c, page(viewer, `${viewer.t.received} · ${r.uuid ?? r.id}`, receivedDetailContent(viewer, r)));
    }),
  );

  for (const format of ['xml', 'pdf'] as const) {
    web.get(
      `/console/received/:id/${format}`,
      kit.signedIn(async (c, session, viewer) => {
        const res = await kit.api(c, session, 'GET', `/api/v1/received-cfdis/${idOf(c)}/${format}`);
        if (res.status === 400) return kit.notFound(c, viewer);
        return (await kit.refused(c, viewer, res)) ?? kit.passThrough(res);
      }),
    );
  }

  web.post(
    '/console/received/:id/refresh',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        const res = await kit.api(c, session, 'POST', `/api/v1/received-cfdis/${idOf(c)}/refresh`);
        if (res.status === 400) return kit.notFound(c, viewer);
        return (await kit.refused(c, viewer, res)) ?? kit.redirect(c, `/console/received/${idOf(c)}`);
      }),
    ),
  );

  const satList = async (c: ConsoleContext, session: Parameters<ConsoleKit['api']>[1], cursor?: string) => {
    const params = new URLSearchParams({ limit: '25', ...(cursor ? { cursor } : {}) });
    const res = await kit.api(c, session, 'GET', `/api/v1/sat-downloads?${params}`);
    if (res.status !== 200) return { items: [] as SatDownload[], next: null, error: res };
    const body = (await res.json()) as { data: SatDownload[]; pagination: { next_cursor: string | null } };
    return { items: body.data, next: body.pagination.next_cursor };
  };

  web.get(
    '/console/sat-downloads',
    kit.signedIn(async (c, session, viewer) => {
      const cursor = c.req.query('cursor')?.slice(0, 512);
      const list = await satList(c, session, cursor);
      if (list.error) {
        const error = await fieldErrors(list.error);
        return kit.htmlPage(c, page(viewer, viewer.t.satDownloads, satListContent(viewer, [], null, !!cursor, {}, error)), formStatus(list.error.status));
      }
      return kit.htmlPage(c, page(viewer, viewer.t.satDownloads, satListContent(viewer, list.items, list.next, !!cursor)));
    }),
  );

  web.post(
    '/console/sat-downloads',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const values = Object.fromEntries(['direction', 'kind', 'desde', 'hasta', 'tipo', 'rfc'].map((k) => [k, (form[k] ?? '').trim()]));
        const body = {
          direction: values.direction,
          kind: values.kind,
          desde: values.desde,
          hasta: values.hasta,
          ...(values.tipo ? { tipo: values.tipo } : {}),
          ...(values.rfc ? { rfc: values.rfc } : {}),
        };
        const res = await kit.api(c, session, 'POST', '/api/v1/sat-downloads', body);
        if (res.status === 202) {
          const { data } = (await res.json()) as { data: SatDownload[] };
          return kit.redirect(c, data[0] ? `/console/sat-downloads/${data[0].id}` : '/console/sat-downloads');
        }
        if (res.status === 403) return (await kit.refused(c, viewer, res))!;
        // The API's refusal (no FIEL: 409; a Descarga Masiva rule: 400) beside the form it refused.
        const error = await fieldErrors(res);
        const list = await satList(c, session);
        return kit.htmlPage(
          c,
          page(viewer, viewer.t.satDownloads, satListContent(viewer, list.items, list.next, false, values, error)),
          formStatus(res.status),
        );
      }),
    ),
  );

  web.get(
    '/console/sat-downloads/:id',
    kit.signedIn(async (c, session, viewer) => {
      const res = await kit.api(c, session, 'GET', `/api/v1/sat-downloads/${idOf(c)}`);
      if (res.status !== 200) return kit.notFound(c, viewer);
      const d = (await res.json()) as SatDownload;
      return kit.htmlPage(c, page(viewer, `${viewer.t.satDownloads} · ${d.id}`, satDetailContent(viewer, d)));
    }),
  );
}
