import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(import.meta.dir, '../../../src');
/** The one owner of a retención's status (src/invoices/retenciones/lifecycle.ts). */
const OWNER = 'invoices/retenciones/lifecycle.ts';

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

/** Where a file writes the retenciones table: the query builder's update or insert on it, or SQL text that does. */
function retencionWrites(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\.(update|insert)\(\s*retenciones\s*\)/g)) found.push(m[0]);
  for (const m of text.matchAll(/\b(update|insert\s+into)\s+["`]?retenciones["`]?\s/gi)) found.push(m[0].trim());
  return found;
}

describe('one retención lifecycle', () => {
  test('no file but the lifecycle writes a retención (its status)', () => {
    const offenders = sources(SRC).flatMap((file) => {
      const name = relative(SRC, file);
      const writes = name === OWNER ? [] : retencionWrites(readFileSync(file, 'utf8'));
      return writes.length > 0 ? [`${name}: ${writes.join(', ')}`] : [];
    });
    expect(offenders).toEqual([]);
    expect(retencionWrites(readFileSync(join(SRC, OWNER), 'utf8'))).toEqual(['.insert(retenciones)', '.update(retenciones)']);
  });

  test('the check finds a write outside the lifecycle', () => {
    expect(retencionWrites("await tx.update(retenciones).set({ status: 'cancelado' })")).toEqual(['.update(retenciones)']);
    expect(retencionWrites("sql`UPDATE retenciones SET status = 'vigente'`")).toEqual(['UPDATE retenciones']);
    expect(retencionWrites('update "retenciones" set status = $1')).toEqual(['update "retenciones"']);
    expect(retencionWrites('await tx.insert(retencionDocuments).values(doc)')).toEqual([]);
  });
});
