import type Database from 'better-sqlite3';

/**
 * Which tables of a SQLite database changed between two moments, by content. Every table listed in
 * `sqlite_master` is fingerprinted (row count + a hash of its rows, order-independent), except:
 * - FTS5 virtual tables and their shadow tables (`<fts>_content`, `_data`, `_idx`, `_docsize`, `_config`): a
 *   search index derived from a table that is watched (here catalog_search indexes catalog_entries, and
 *   src/catalogs/seed.ts is its only writer, in the same transaction); SQLite allows no triggers on them and
 *   hashing 55,000 rows per check is too slow;
 * - `reference` tables (the SAT catalogs, 150,000 rows: hashing them takes over a second) are watched by TEMP
 *   triggers that count their writes instead; a write rolled back takes its count back with it.
 * Snapshots are taken lazily: `total_changes()` counts every row written on the connection, so while it stands
 * still the last snapshot is still the truth and nothing is hashed (a write rolled back still moves it: then the
 * hashes decide, and an unchanged content is no change).
 */
export interface TableChange {
  table: string;
  /** Only columns listed in `masked` for that table differ. */
  maskedOnly: boolean;
}

export function createDbWatch(sqlite: Database.Database, opts: { reference?: string[]; masked?: Record<string, string[]> } = {}) {
  const reference = new Set(opts.reference ?? []);
  const masked = opts.masked ?? {};
  sqlite.exec('create temp table if not exists fuzz_reference_writes (name text primary key, n integer not null)');
  for (const table of reference) {
    sqlite.prepare('insert or ignore into temp.fuzz_reference_writes (name, n) values (?, 0)').run(table);
    for (const event of ['insert', 'update', 'delete']) {
      sqlite.exec(`create temp trigger if not exists "fuzz_${table}_${event}" after ${event} on main."${table}"
        begin update temp.fuzz_reference_writes set n = n + 1 where name = '${table}'; end`);
    }
  }

  const tables = (): string[] => {
    const rows = sqlite.prepare("select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_stat%'").all() as {
      name: string;
      sql: string | null;
    }[];
    const fts = rows.filter((r) => /create\s+virtual\s+table/i.test(r.sql ?? '')).map((r) => r.name);
    const shadow = (name: string) => fts.some((f) => name === f || ['_content', '_data', '_idx', '_docsize', '_config'].some((s) => name === f + s));
    return rows
      .map((r) => r.name)
      .filter((n) => !shadow(n))
      .sort();
  };

  const cell = (v: unknown) => (v instanceof Uint8Array ? `b${Bun.hash(v).toString(36)}` : typeof v === 'bigint' ? `n${v}` : v);

  function hashTable(table: string): { hash: string; masked: string } {
    const stmt = sqlite.prepare(`select * from "${table.replace(/"/g, '""')}"`).raw(true);
    const hide = new Set(masked[table] ?? []);
    const keep = stmt
      .columns()
      .map((c, i) => (hide.has(c.name) ? -1 : i))
      .filter((i) => i >= 0);
    const full: string[] = [];
    const partial: string[] = [];
    for (const row of stmt.iterate() as Iterable<unknown[]>) {
      const cells = row.map(cell);
      full.push(JSON.stringify(cells));
      if (hide.size) partial.push(JSON.stringify(keep.map((i) => cells[i])));
    }
    const digest = (rows: string[]) => `${rows.length}:${Bun.hash(rows.sort().join('\n')).toString(36)}`;
    const hash = digest(full);
    return { hash, masked: hide.size ? digest(partial) : hash };
  }

  function fingerprint(table: string): { hash: string; masked: string } {
    if (!reference.has(table)) return hashTable(table);
    const hash = `writes:${(sqlite.prepare('select n from temp.fuzz_reference_writes where name = ?').get(table) as { n: number }).n}`;
    return { hash, masked: hash };
  }

  type Snapshot = Map<string, { hash: string; masked: string }>;
  const snapshot = (): Snapshot => {
    const out: Snapshot = new Map();
    for (const name of tables()) {
      if (name !== 'sqlite_sequence') {
        out.set(name, fingerprint(name));
        continue;
      }
      // SQLite's AUTOINCREMENT counters, one row per table: reported as `sqlite_sequence(<table>)`, so a change is
      // charged to the table whose insert moved it.
      for (const r of sqlite.prepare('select name, seq from sqlite_sequence').all() as { name: string; seq: number }[]) {
        out.set(`sqlite_sequence(${r.name})`, { hash: String(r.seq), masked: String(r.seq) });
      }
    }
    return out;
  };
  const totalChanges = () => (sqlite.prepare('select total_changes() as n').get() as { n: number }).n;

  let baseline = snapshot();
  let baselineChanges = totalChanges();

  return {
    /** Makes the current content the baseline (free when nothing was written since the last one). */
    sync(): void {
      const now = totalChanges();
      if (now === baselineChanges) return;
      baseline = snapshot();
      baselineChanges = now;
    },
    /** Tables whose content differs from the baseline; the current content becomes the baseline. */
    diff(): TableChange[] {
      const now = totalChanges();
      if (now === baselineChanges) return [];
      const after = snapshot();
      const changes: TableChange[] = [];
      for (const name of new Set([...baseline.keys(), ...after.keys()])) {
        const a = baseline.get(name);
        const b = after.get(name);
        if (a?.hash === b?.hash) continue;
        changes.push({ table: name, maskedOnly: a !== undefined && b !== undefined && a.masked === b.masked });
      }
      baseline = after;
      baselineChanges = now;
      return changes;
    },
    /** Rows written to each reference table since the watch began. */
    referenceWrites(): Record<string, number> {
      return Object.fromEntries(
        (sqlite.prepare('select name, n from temp.fuzz_reference_writes').all() as { name: string; n: number }[]).map((r) => [r.name, r.n]),
      );
    },
  };
}
