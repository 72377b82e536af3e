import { apiList, canWrite, cursorOf, errorBox, field, given, idOf, outcome, pager, postForm } from './forms.ts';
import type { ConsoleContext, ConsoleKit, ConsoleRouter, PageStatus, Session } from './kit.ts';
import { h, page, type Viewer } from './page.ts';

/** GET /api/v1/series's item. */
interface Series {
  id: string;
  serie: string;
  next_folio: number;
  default: boolean;
  descripcion: string | null;
}

/** A folio typed in a form: a number when it is digits, else the text (the API names what is wrong with it). */
const folio = (value: string | undefined) => {
  const text = given(value);
  return text === undefined ? undefined : /^\d{1,15}$/.test(text) ? Number(text) : text;
};

/** The series: the list, a new one, one edited (next folio, description, default). The API has no delete of a series. */
export function mountSeriesScreens(web: ConsoleRouter, kit: ConsoleKit) {
  const list = async (c: ConsoleContext, session: Session, viewer: Viewer, form?: Record<string, string> & { error?: string }, status?: PageStatus) => {
    const { t } = viewer;
    const cursor = cursorOf(c);
    const got = await apiList<Series>(kit, c, session, viewer, `/api/v1/series?${new URLSearchParams({ limit: '50', ...(cursor ? { cursor } : {}) })}`);
    if (got instanceof Response) return got;
    const write = canWrite(viewer);
    const create = write
      ? postForm(
          viewer,
          '/console/series',
          h`<h2>${t.seriesNew}</h2>${errorBox(form?.error)}<div class="grid">
${field('se', 'serie', t.serie, form?.serie, h`required maxlength="25" autocomplete="off"`)}
${field('se', 'folio_inicial', t.seriesFirstFolio, form?.folio_inicial, h`inputmode="numeric" maxlength="15" autocomplete="off"`)}
${field('se', 'descripcion', t.descripcion, form?.descripcion, h`maxlength="200" autocomplete="off"`)}
<div><label for="se-default"><input type="checkbox" id="se-default" name="default" class="check"> ${t.seriesDefault}</label></div>
<div class="actions"><button type="submit" id="create-series">${t.create}</button></div>
</div>`,
          { card: true, id: 'new-series' },
        )
      : '';
    const table =
      got.data.length === 0
        ? h`<p id="empty">${t.seriesNone}</p>`
        : h`<table class="list" id="series"><thead><tr><th scope="col">${t.serie}</th><th scope="col" class="num">${t.seriesNextFolio}</th><th scope="col">${t.descripcion}</th><th scope="col">${t.seriesDefault}</th></tr></thead><tbody>
${got.data.map(
  (s) =>
    h`<tr data-id="${s.id}"><td data-label="${t.serie}">${write ? h`<a href="/console/series/${s.id}">${s.serie}</a>` : s.serie}</td><td data-label="${t.seriesNextFolio}" class="num">${s.next_folio}</td><td data-label="${t.descripcion}">${s.descripcion ?? ''}</td><td data-label="${t.seriesDefault}">${s.default ? '✓' : ''}</td></tr>`,
)}
</tbody></table>`;
    return kit.htmlPage(
      c,
      page(viewer, t.series, h`${create}<section>${table}${pager(viewer, '/console/series', new URLSearchParams(), got.next, !!cursor)}</section>`),
      status,
    );
  };

  const edit = async (c: ConsoleContext, session: Session, viewer: Viewer, error?: string, status?: PageStatus) => {
    const { t } = viewer;
    const res = await kit.api(c, session, 'GET', `/api/v1/series/${idOf(c)}`);
    const refused = await kit.refused(c, viewer, res);
    if (refused) return refused;
    const s = (await res.json()) as Series;
    const form = canWrite(viewer)
      ? postForm(
          viewer,
          `/console/series/${s.id}`,
          h`${errorBox(error)}<input type="hidden" name="was" value="${s.next_folio}"><div class="grid">
${field('se', 'folio_inicial', t.seriesNextFolio, String(s.next_folio), h`inputmode="numeric" maxlength="15" autocomplete="off"`)}
${field('se', 'descripcion', t.descripcion, s.descripcion, h`maxlength="200" autocomplete="off"`)}
<div><label for="se-default"><input type="checkbox" id="se-default" name="default" class="check"${s.default ? h` checked disabled` : ''}> ${t.seriesDefault}</label></div>
<div class="actions"><button type="submit" id="save-series">${t.save}</button></div>
</div>`,
          { card: true, id: 'edit-series' },
        )
      : '';
    return kit.htmlPage(c, page(viewer, `${t.series} · ${s.serie}`, h`${form}<p><a href="/console/series">${t.backTo(t.series)}</a></p>`), status);
  };

  web.get(
    '/console/series',
    kit.signedIn((c, session, viewer) => list(c, session, viewer)),
  );
  web.get(
    '/console/series/:id',
    kit.signedIn((c, session, viewer) => edit(c, session, viewer)),
  );

  web.post(
    '/console/series',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        const body = {
          serie: (form.serie ?? '').trim(),
          folio_inicial: folio(form.folio_inicial),
          descripcion: given(form.descripcion),
          default: form.default === 'on' ? true : undefined,
        };
        const res = await kit.api(c, session, 'POST', '/api/v1/series', body);
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return list(c, session, viewer, { ...form, error: refused.error }, refused.status);
        return kit.redirect(c, '/console/series');
      }),
    ),
  );

  web.post(
    '/console/series/:id',
    kit.signedIn(
      kit.change(async (c, session, viewer, form) => {
        // The next folio is sent only when it was changed here: folios assigned meanwhile are not moved back (409).
        const body = {
          folio_inicial: form.folio_inicial?.trim() === form.was ? undefined : folio(form.folio_inicial),
          ...('descripcion' in form ? { descripcion: given(form.descripcion) ?? null } : {}),
          default: form.default === 'on' ? true : undefined,
        };
        const res = await kit.api(c, session, 'PATCH', `/api/v1/series/${idOf(c)}`, body);
        const refused = await outcome(kit, c, viewer, res);
        if (refused instanceof Response) return refused;
        if (refused) return edit(c, session, viewer, refused.error, refused.status);
        return kit.redirect(c, '/console/series');
      }),
    ),
  );
}
