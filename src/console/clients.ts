import { actionButton, apiList, canWrite, cursorOf, errorBox, field, given, idOf, outcome, pager, postForm } from './forms.ts';
import type { ConsoleContext, ConsoleKit, ConsoleRouter, PageStatus, Session } from './kit.ts';
import { h, type Markup, page, type Viewer } from './page.ts';

/** GET /api/v1/clients's item, as far as the console shows and edits it. */
interface Client {
  id: string;
  rfc: string;
  nombre: string;
  regimen_fiscal: string;
  domicilio_fiscal: string;
  uso_cfdi: string;
  email: string | null;
}

/** The fields of a client the forms edit, in this order. */
const FIELDS = ['rfc', 'nombre', 'regimen_fiscal', 'domicilio_fiscal', 'uso_cfdi', 'email'] as const;

/** The clients: the list with the API's search, a new one, one edited, one deleted (SAT's receptor rules are the API's). */
export function mountClientScreens(web: ConsoleRouter, kit: ConsoleKit) {
  const fields = (viewer: Viewer, values: Partial<Record<string, string | null>>, required: boolean): Markup => {
    const { t } = viewer;
    const need = required ? h`required ` : h``;
    return h`<div class="grid">
${field('cl', 'rfc', 'RFC', values.rfc, h`${need}maxlength="13" autocomplete="off" spellcheck="false"`)}
${field('cl', 'nombre', t.name, values.nombre, h`${need}maxlength="300" autocomplete="off"`)}
${field('cl', 'regimen_fiscal', t.regimenFiscal, values.regimen_fiscal, h`${need}maxlength="3" autocomplete="off" placeholder="601"`)}
${field('cl', 'domicilio_fiscal', t.domicilioFiscal, values.domicilio_fiscal, h`${need}maxlength="5" inputmode="numeric" autocomplete="off"`)}
${field('cl', 'uso_cfdi', t.usoCfdi, values.uso_cfdi, h`${need}maxlength="4" autocomplete="off" placeholder="G03"`)}
${field('cl', 'email', t.email, values.email, h`type="email" maxlength="254" autocomplete="off"`)}
</div>`;
  };

  const list = async (c: ConsoleContext, session: Session, viewer: Viewer, form?: Record<string, string> & { error?: string }, status?: PageStatus) => {
    const { t } = viewer;
    const q = c.req.query('q')?.trim().slice(0, 100);
    const cursor = cursorOf(c);
    const params = new URLSearchParams(q ? { q } : {});
    const got = await apiList<Client>(
      kit,
      c,
      session,
      viewer,
      `/api/v1/clients?${new URLSearchParams({ limit: '50', ...(q ? { q } : {}), ...(cursor ? { cursor } : {}) })}`,
    );
    if (got instanceof Response) return got;
    const write = canWrite(viewer);
    const create = write
      ? postForm(
          viewer,
          '/console/clients',
          h`<h2>${t.clientNew}</h2>${errorBox(form?.error)}${fields(viewer, form ?? {}, true)}<div class="actions"><button type="submit" id="create-client">${t.create}</button></div>`,
          { card: true, id: 'new-client' },
        )
      : '';
    const search = h`<form method="get" action="/console/clients" class="card" role="search" aria-label="${t.filters}"><div class="grid">
${field('cq', 'q', t.clientSearch, q, h`maxlength="100" autocomplete="off"`)}
<div class="actions"><button type="submit" id="search">${t.search}</button><a href="/console/clients">${t.clear}</a></div></div></form>`;
    const table =
      got.data.length === 0
        ? h`<p id="empty">${t.clientNone}</p>`
        : h`<table class="list" id="clients"><thead><tr><th scope="col">RFC</th><th scope="col">${t.name}</th><th scope="col">${t.regimenFiscal}</th><th scope="col">${t.domicilioFiscal}</th><th scope="col">${t.usoCfdi}</th><th scope="col">${t.email}</th></tr></thead><tbody>
${got.data.map(
  (k) =>
    h`<tr data-id="${k.id}"><td data-label="RFC"><a href="/console/clients/${k.id}">${k.rfc}</a></td><td data-label="${t.name}">${k.nombre}</td><td data-label="${t.regimenFiscal}">${k.regimen_fiscal}</td><td data-label="${t.domicilioFiscal}">${k.domicilio_fiscal}</td><td data-label="${t.usoCfdi}">${k.uso_cfdi}</td><td data-label="${t.email}">${k.email ?? ''}</td></tr>`,
)}
</tbody></table>`;
    return kit.htmlPage(
      c,
      page(viewer, t.clients, h`${create}${search}<section>${table}${pager(viewer, '/console/clients', params, got.next, !!cursor)}</section>`),
      status,
    );
  };

  const edit = async (c: ConsoleContext, session: Session, viewer: Viewer, form?: Record<string, string> & { error?: string }, status?: PageStatus) => {
    const { t } = viewer;
    const res = await kit.api(c, session, 'GET', `/api/v1/clients/${idOf(c)}`);
    const refused = await kit.refused(c, viewer, res);
    if (refused) return refused;
    const k = (await res.json()) as Client;
    const write = canWrite(viewer);
    const content = write
      ? h`${postForm(viewer, `/console/clients/${k.id}`, h`${errorBox(form?.error)}${fields(viewer, { ...k, ...form }, true)}<div class="actions"><button type="submit" id="save-client">${t.save}</button></div>`, { card: true, id: 'edit-client' })}
<div class="actions">${actionButton(viewer, `/console/clients/${k.id}/delete`, t.delete, { id: 'delete-client', danger: true, confirm: t.clientDeleteConfirm })}</div>`
      : h`<section><dl><dt>RFC</dt><dd>${k.rfc}</dd><dt>${t.name}</dt><dd>${k.nombre}</dd><dt>${t.regimenFiscal}</dt><dd>${k.regimen_fiscal}</dd><dt>${t.domicilioFiscal}</dt><dd>${k.domicilio_fiscal}</dd><dt>${t.usoCfdi}</dt><dd>${k.uso_cfdi}</dd><dt>${t.email}</dt><dd>${k.email ?? '—'}</dd></dl></section>`;
    return kit.htmlPage(c, page(viewer, `${t.clients} · ${k.rfc}`, h`${content}<p><a href="/console/clients">${t.backTo(t.clients)}</a></p>`), status);
  };

  web.get(
    '/console/clients',
    kit.signedIn((c, session, viewer) => list(c, session, viewer)),
  );
  web.get(
    '/console/clients/:id',
    kit.signedIn((c, session, viewer) => edit(c, session, viewer)),
  );

  web.post(
    '/console/clients',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const body = Object.fromEntries(FIELDS.map((f) => [f, given(form[f])]));
        const res = await kit.api(c, session, 'POST', '/api/v1/clients', body);
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return list(c, session, viewer, { ...form, error: refused.error }, refused.status);
        return kit.redirect(c, '/console/clients');
      }),
    ),
  );

  web.post(
    '/console/clients/:id',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        // What the form has: an emptied email clears it (null); other emptied fields are left as they are.
        const body = Object.fromEntries(FIELDS.filter((f) => f in form).map((f) => [f, f === 'email' ? (given(form[f]) ?? null) : given(form[f])]));
        const res = await kit.api(c, session, 'PATCH', `/api/v1/clients/${idOf(c)}`, body);
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return edit(c, session, viewer, { ...form, error: refused.error }, refused.status);
        return kit.redirect(c, `/console/clients/${idOf(c)}`);
      }),
    ),
  );

  web.post(
    '/console/clients/:id/delete',
    kit.signedIn(
      kit.change(async (c, session, viewer) => {
        const res = await kit.api(c, session, 'DELETE', `/api/v1/clients/${idOf(c)}`);
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return edit(c, session, viewer, { error: refused.error }, refused.status);
        return kit.redirect(c, '/console/clients');
      }),
    ),
  );
}
