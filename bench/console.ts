/**
 * The console's pages (issue 40: each under 200 ms on the demo data set of 10,000 invoices, default configuration).
 * The service as `npm start` runs it, on a fresh DATA_DIR; one tenant issues `--invoices` through the API; its admin
 * signs in to /console as a browser does; then each page is asked `--samples` times, one at a time, after a warm-up.
 * The reference, measured in the same run: the API's own GET /cfdis?limit=25 with an API key, which the list page wraps.
 *
 *   bun bench/console.ts [--invoices 10000] [--samples 40]
 */
import { parseArgs } from 'node:util';
import { signIn } from '../tests/console/sign-in.ts';
import { INVOICE } from './invoice.ts';
import { closedLoad } from './load.ts';
import { startService } from './service.ts';

const { values } = parseArgs({ options: { invoices: { type: 'string', default: '10000' }, samples: { type: 'string', default: '40' } } });
const invoices = Number(values.invoices);
const samples = Number(values.samples);
const log = (s: string) => console.error(s);

const server = await startService({});
try {
  const origin = new URL(server.url).origin;
  const t0 = performance.now();
  let issued = 0;
  const post = { method: 'POST', headers: { ...server.headers, 'content-type': 'application/json' }, body: JSON.stringify(INVOICE) };
  // Closed loops of 8 until the count is reached: the demo data set, issued through the API.
  while (issued < invoices) {
    const r = await closedLoad({ urlOf: () => `${server.url}/cfdis`, init: post, expected: 201, concurrency: 8, durationMs: 2000 });
    if (r.errors) throw new Error(`issuing: ${r.errors} errors`);
    issued += r.ok;
  }
  log(`issued ${issued.toLocaleString('en-US')} invoices in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const http = { request: (path: string, init?: RequestInit) => fetch(path, { ...init, redirect: 'manual' }) };
  const { cookie, html } = await signIn(http, server.login.email, server.login.password, origin);
  const first = (pattern: RegExp, text: string, what: string) => {
    const m = pattern.exec(text);
    if (!m) throw new Error(`no ${what} on the page`);
    return m[1]!.replaceAll('&#38;', '&');
  };
  const id = first(/<tr data-id="([^"]+)"/, html, 'invoice');
  const uuid = first(/aria-label="[^"]* ([0-9A-F-]{36})"/, html, 'UUID');
  // Five pages in, by the list's own next links: a page deep in the keyset.
  let deep = '/console/invoices';
  for (let i = 0; i < 5; i++)
    deep = first(/href="([^"]+)" id="next-page"/, await (await http.request(origin + deep, { headers: { cookie } })).text(), 'next page');

  const pages: [string, string][] = [
    ['invoice list', '/console/invoices'],
    ['invoice list, by RFC', '/console/invoices?receptor_rfc=ICV060329BY0&tipo=I'],
    ['invoice list, by name (contains)', '/console/invoices?receptor_nombre=cva'],
    ['invoice list, by UUID', `/console/invoices?uuid=${uuid}`],
    ['invoice list, by amount', '/console/invoices?total_min=100&total_max=200000'],
    // The worst cases: filters no index answers, matching nothing, so every invoice of the tenant is read.
    ['invoice list, a name no invoice has', '/console/invoices?receptor_nombre=zzz'],
    ['invoice list, an amount no invoice has', '/console/invoices?total_min=99999999'],
    ['invoice list, 6th page', deep],
    ['invoice detail', `/console/invoices/${id}`],
    ['invoice XML', `/console/invoices/${id}/xml`],
    ['invoice PDF', `/console/invoices/${id}/pdf`],
    ['issue form', '/console/invoices/new'],
    ['received inbox', '/console/received'],
    ['SAT downloads', '/console/sat-downloads'],
    ['receipts', '/console/receipts'],
    ['profile', '/console/profile'],
    ['stats', '/console/stats'],
    ['clients', '/console/clients'],
    ['series', '/console/series'],
    ['webhooks', '/console/webhooks'],
    ['CSDs', '/console/csds'],
    ['API keys', '/console/api-keys'],
    ['users', '/console/users'],
    ['audit log', '/console/audit-log'],
  ];
  const time = async (url: string, headers: Record<string, string>) => {
    const ms: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      const start = performance.now();
      const res = await fetch(url, { headers, redirect: 'manual' });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
      if (i >= 3) ms.push(performance.now() - start);
    }
    ms.sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
    return { p50: at(0.5), p95: at(0.95), max: ms[ms.length - 1]! };
  };
  const reference = await time(`${server.url}/cfdis?limit=25`, server.headers);
  const rows: string[] = [];
  for (const [name, path] of pages) {
    const r = await time(origin + path, { cookie });
    rows.push(
      `| ${name} | \`${path.replace(id, ':id').replace(/cursor=[^&]+/, 'cursor=…')}\` | ${r.p50.toFixed(1)} ms | ${r.p95.toFixed(1)} ms | ${r.max.toFixed(1)} ms | ${(r.p50 / reference.p50).toFixed(2)} | ${r.max < 200 ? 'yes' : '**no**'} |`,
    );
  }
  console.log(
    [
      `Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; ${issued.toLocaleString('en-US')} invoices; ${samples} requests per page, one at a time, after 3 warm-up`,
      `Reference GET /api/v1/cfdis?limit=25 (API key): p50 ${reference.p50.toFixed(1)} ms, p95 ${reference.p95.toFixed(1)} ms`,
      '',
      '| page | path | p50 | p95 | max | p50 / reference | max < 200 ms |',
      '|---|---|---:|---:|---:|---:|:---:|',
      ...rows,
    ].join('\n'),
  );
} finally {
  await server.stop();
}
