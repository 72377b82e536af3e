import type { ConsoleKit, ConsoleRouter } from './kit.ts';
import { h, type Markup, page, type Viewer } from './page.ts';
import { fieldWithIssue } from './forms.ts';

type Importe = { tipo: string; moneda: string; total: number };
/** GET /api/v1/stats, as far as the page shows it. */
interface Stats {
  environment: string;
  cfdis: {
    total: number;
    por_status: Record<string, number>;
    por_tipo: Record<string, number>;
    importes: Importe[];
    por_mes: { mes: string; cantidad: number; por_tipo: Record<string, number>; importes: Importe[] }[];
  };
  csds: { total: number; activos: number; por_vencer_30_dias: number };
  usuarios: { total: number; por_rol: Record<string, number> };
  api_keys: { activas: number };
}

const amount = (i: Importe) => `${i.total.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })} ${i.moneda} (${i.tipo})`;

const BAR = 36;
const GAP = 12;
const HEIGHT = 160;
const AXIS = 22;

/**
 * The CFDIs per month as bars: an SVG made on the server, sized by attributes (the CSP allows no style attribute),
 * coloured by the stylesheet's classes. The table below it has the same numbers, for those who do not see it.
 */
function monthChart(v: Viewer, months: Stats['cfdis']['por_mes']): Markup {
  const { t } = v;
  const max = Math.max(1, ...months.map((m) => m.cantidad));
  const width = Math.max(1, months.length) * (BAR + GAP) + GAP;
  return h`<svg id="chart" class="chart" viewBox="0 0 ${width} ${HEIGHT + AXIS * 2}" width="${width}" height="${HEIGHT + AXIS * 2}" role="img" aria-labelledby="chart-title">
<title id="chart-title">${t.stsChartTitle}</title>
<line x1="0" y1="${HEIGHT + AXIS}" x2="${width}" y2="${HEIGHT + AXIS}" class="axis"></line>
${months.map((m, i) => {
  const height = Math.round((m.cantidad / max) * HEIGHT);
  const x = GAP + i * (BAR + GAP);
  const y = HEIGHT + AXIS - height;
  return h`<g data-mes="${m.mes}"><rect class="bar" x="${x}" y="${y}" width="${BAR}" height="${height}" data-cantidad="${m.cantidad}"><title>${m.mes}: ${m.cantidad}</title></rect><text x="${x + BAR / 2}" y="${y - 4}" text-anchor="middle" class="value">${m.cantidad}</text><text x="${x + BAR / 2}" y="${HEIGHT + AXIS * 2 - 4}" text-anchor="middle" class="label">${m.mes.slice(2)}</text></g>`;
})}
</svg>`;
}

function statsContent(v: Viewer, s: Stats, desde?: string, hasta?: string): Markup {
  const { t } = v;
  const counts = (record: Record<string, number>, names: Record<string, string> = {}) =>
    Object.entries(record).map(([k, n]) => h`<li>${names[k] ?? k}: <span data-key="${k}">${n}</span></li>`);
  return h`<form method="get" action="/console/stats" class="card" id="filters" aria-label="${t.filters}">
<div class="grid">
${fieldWithIssue('desde', t.stsFromMonth, desde, h`type="month" pattern="[0-9]{4}-[0-9]{2}"`)}
${fieldWithIssue('hasta', t.stsToMonth, hasta, h`type="month" pattern="[0-9]{4}-[0-9]{2}"`)}
<div class="actions"><button type="submit" id="search">${t.search}</button><a href="/console/stats">${t.clear}</a></div>
</div>
</form>
<section aria-labelledby="h-months">
<h2 id="h-months">${t.stsPerMonth}</h2>
${s.cfdis.por_mes.length === 0 ? h`<p id="empty">${t.stsNone}</p>` : h`<div class="chart-box">${monthChart(v, s.cfdis.por_mes)}</div>`}
<table class="list" id="months"><caption>${t.stsTableCaption}</caption><thead><tr><th scope="col">${t.stsMonth}</th><th scope="col" class="num">${t.stsCount}</th><th scope="col">${t.stsByType}</th><th scope="col">${t.stsAmounts}</th></tr></thead><tbody>
${s.cfdis.por_mes.map(
  (m) =>
    h`<tr data-mes="${m.mes}"><th scope="row" data-label="${t.stsMonth}">${m.mes}</th><td data-label="${t.stsCount}" class="num cantidad">${m.cantidad}</td><td data-label="${t.stsByType}">${Object.entries(
      m.por_tipo,
    ).map(
      ([k, n]) => h`<span class="pair">${t.tipos[k] ?? k}: ${n}</span> `,
    )}</td><td data-label="${t.stsAmounts}">${m.importes.map((i) => h`<div class="importe">${amount(i)}</div>`)}</td></tr>`,
)}
</tbody></table>
</section>
<section aria-labelledby="h-totals">
<h2 id="h-totals">${t.stsTotals}</h2>
<dl>
<dt>${t.stsCfdis}</dt><dd id="total-cfdis">${s.cfdis.total}</dd>
<dt>${t.status}</dt><dd><ul id="por-status">${counts(s.cfdis.por_status, t.statuses)}</ul></dd>
<dt>${t.tipo}</dt><dd><ul id="por-tipo">${counts(s.cfdis.por_tipo, t.tipos)}</ul></dd>
<dt>${t.stsAmounts}</dt><dd id="importes">${s.cfdis.importes.map((i) => h`<div class="importe">${amount(i)}</div>`)}</dd>
<dt>CSD</dt><dd id="csds">${s.csds.activos} / ${s.csds.total} (${t.stsExpiring}: ${s.csds.por_vencer_30_dias})</dd>
<dt>${t.stsUsers}</dt><dd id="usuarios">${s.usuarios.total}</dd>
<dt>${t.stsKeys}</dt><dd id="api-keys">${s.api_keys.activas}</dd>
</dl>
</section>`;
}

/** The tenant's figures: CFDIs per month as a chart and a table, and the totals of GET /stats. */
export function mountStatsScreens(web: ConsoleRouter, kit: ConsoleKit) {
  web.get(
    '/console/stats',
    kit.signedIn(async (c, session, viewer) => {
      const desde = c.req.query('desde')?.trim().slice(0, 16) || undefined;
      const hasta = c.req.query('hasta')?.trim().slice(0, 16) || undefined;
      const params = new URLSearchParams({ ...(desde ? { desde } : {}), ...(hasta ? { hasta } : {}) });
      const res = await kit.api(c, session, 'GET', `/api/v1/stats${params.size ? `?${params}` : ''}`);
      if (res.status !== 200) {
        const error = await kit.refusal(res, viewer.t);
        const content = h`<p class="error" role="alert" id="list-error">${error}</p><p><a href="/console/stats">${viewer.t.clear}</a></p>`;
        return kit.htmlPage(c, page(viewer, viewer.t.stats, content), res.status === 400 ? 400 : 502);
      }
      return kit.htmlPage(c, page(viewer, viewer.t.stats, statsContent(viewer, (await res.json()) as Stats, desde, hasta)));
    }),
  );
}
