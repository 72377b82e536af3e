/**
 * SAT's verification page for CFDI de Retenciones on 127.0.0.1 (a port from the kernel): GET /Home/ConsultaRetencion
 * with folio, rfcEmisor and rfcReceptor answers HTML shaped as SAT's (docs/decisions.md, "A retención's SAT status in
 * live mode"): for a retención it knows under those three values, the result table (#tbl_resultado: rows of headings,
 * each followed by a row of values; Cancelado adds its date in td#tdFechaCancelacion), else the "not registered"
 * notice (div.noresultados). `control.answer` makes it fail: HTTP 500, a page of its own, or no answer at all.
 */
export interface KnownRetencion {
  rfcEmisor: string;
  /** Empty for a receptor Extranjero. */
  rfcReceptor: string;
  estado: 'Vigente' | 'Cancelado';
  /** With Cancelado: SAT's wall clock, `2025-03-01T10:00:00`. */
  fechaCancelacion?: string;
}

type Answer = 'page' | 'http500' | 'hang' | { html: string };

const row = (tag: 'th' | 'td', cells: string[]) => `<tr>${cells.map((c) => `\n<${tag}${c}</${tag}>`).join('')}\n</tr>`;
const value = (text: string, id?: string) => `${id ? ` id="${id}"` : ''}>\n  <span>${text}</span>\n`;
const label = (text: string) => `>\n  ${text}\n`;

function resultTable(folio: string, r: KnownRetencion): string {
  const cancelled = r.estado === 'Cancelado';
  return `<table id="tbl_resultado" style="text-align: center;">
${row('th', ['RFC del Emisor', 'Nombre o Raz&oacute;n Social del Emisor', 'RFC del Receptor', 'Nombre o Raz&oacute;n Social del Receptor'].map(label))}
${row(
  'td',
  [r.rfcEmisor, 'ESCUELA KEMPER URGATE', r.rfcReceptor, 'RECEPTOR DE PRUEBA'].map((v) => value(v)),
)}
${row('th', ['Folio Fiscal', 'Fecha de Expedici&oacute;n', 'Fecha Certificaci&oacute;n SAT', 'PAC que Certific&oacute;'].map(label))}
${row(
  'td',
  [folio, '2025-02-10T18:00:00', '2025-02-10T12:00:05', 'SAT970701NN3'].map((v) => value(v)),
)}
${row('th', ['Total del CFDI Retenci&oacute;n', 'Estado CFDI Retenci&oacute;n', ...(cancelled ? ['Fecha de Cancelaci&oacute;n'] : [])].map(label))}
${row('td', [value('$12,500.00'), value(r.estado), ...(cancelled ? [value(r.fechaCancelacion ?? '', 'tdFechaCancelacion')] : [])])}
</table>
<br /><br />
<div class="container-button"><input type="button" id="bttn_imprimir" value="Imprimir" onclick="window.print();" class="button-ret" /></div>
<input hidden="hidden" id="efosEstatus" value="200" />`;
}

const NOT_REGISTERED = `<div class="noresultados">
  <h3 class="subtitle" style="text-align: center">
    Este comprobante no se encuentra registrado en los controles del Servicio de Administraci&oacute;n Tributaria.
  </h3>
</div>`;

export function startRetencionesPage() {
  const control = {
    /** By UUID (upper case): what SAT knows. */
    known: new Map<string, KnownRetencion>(),
    answer: 'page' as Answer,
    /** Each request's query, in order. */
    requests: [] as URLSearchParams[],
  };
  const hanging = Promise.withResolvers<Response>();
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      if (req.method !== 'GET' || url.pathname !== '/Home/ConsultaRetencion') return new Response('Not Found', { status: 404 });
      control.requests.push(url.searchParams);
      const answer = control.answer;
      if (answer === 'hang') return hanging.promise;
      if (answer === 'http500') return new Response('<html><body>Error</body></html>', { status: 500, headers: { 'content-type': 'text/html' } });
      const html = (() => {
        if (answer !== 'page') return answer.html;
        const folio = url.searchParams.get('folio') ?? '';
        const r = control.known.get(folio.toUpperCase());
        const same = r && r.rfcEmisor === url.searchParams.get('rfcEmisor') && r.rfcReceptor === (url.searchParams.get('rfcReceptor') ?? '');
        return same ? resultTable(folio.toUpperCase(), r) : NOT_REGISTERED;
      })();
      return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/Home/ConsultaRetencion`,
    control,
    /** The page's HTML for `r` under `folio`, for a test that serves it altered. */
    resultPage: resultTable,
    stop: () => {
      hanging.resolve(new Response('', { status: 503 }));
      server.stop(true);
    },
  };
}
