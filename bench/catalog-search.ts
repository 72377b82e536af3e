/**
 * Catalog search (issue 19): what one `GET /catalogos/{catalogo}?q=` costs the only JS thread. Times listCatalog
 * (the FTS5 query, the ranking, the page's rows) for every one- and two-letter query, common Spanish words and a
 * 100-character repetition, best of 3 each, and prints the worst ones.
 *
 *   bun bench/catalog-search.ts [--catalogo productos-servicios] [--queries a,para,de] [--top 10]
 */
import { parseArgs } from 'node:util';
import { listCatalog } from '../src/catalogs/service.ts';
import { openDatabase } from '../src/db/client.ts';

const { values } = parseArgs({
  options: { catalogo: { type: 'string', default: 'productos-servicios' }, queries: { type: 'string' }, top: { type: 'string', default: '10' } },
});
const letters = [...'abcdefghijklmnopqrstuvwxyz'];
const queries = values.queries?.split(',') ?? [
  ...letters,
  ...letters.flatMap((a) => letters.map((b) => a + b)),
  ...['de', 'para', 'con', 'por', 'del', 'los', 'las', 'servicio', 'servicios', 'equipo', 'material', 'producto', 'sistema'],
  'de '.repeat(33).trim(),
];
const db = openDatabase(':memory:');
await listCatalog(db, values.catalogo, { q: 'tornillo', limit: 1 }); // fills the catalog tables (first use)

const timings: { q: string; ms: number }[] = [];
for (const q of queries) {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await listCatalog(db, values.catalogo, { q, limit: 100 });
    best = Math.min(best, performance.now() - started);
  }
  timings.push({ q: q.length > 20 ? `${q.slice(0, 17)}…` : q, ms: best });
}
timings.sort((a, b) => b.ms - a.ms);
console.log(`${queries.length} queries on ${values.catalogo}, limit 100, best of 3; total ${timings.reduce((s, t) => s + t.ms, 0).toFixed(0)} ms; worst:`);
for (const t of timings.slice(0, Number(values.top))) console.log(`  ${JSON.stringify(t.q).padEnd(24)} ${t.ms.toFixed(1).padStart(7)} ms`);
