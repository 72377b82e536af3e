import { type Db, forDialect, type DbOrTx, type Tx } from '../db/index.ts';
import { insertMany, statement } from '../db/prepared.ts';

/** One catalog row to load, with the words it is found by when its catalog is searchable. */
export interface CatalogLoadRow {
  catalog: string;
  clave: string;
  descripcion: string | null;
  validFrom: string | null;
  validTo: string | null;
  data: Readonly<Record<string, string>>;
  searchText?: string;
}

/** A word of a search: `prefix` matches the words it starts, otherwise only the whole word. */
export interface SearchTerm {
  word: string;
  prefix: boolean;
}

/** The catalog tables' load and the word search, whose index is the engine's own (SQLite: FTS5). */
export interface CatalogQueries {
  /** Whether the word index holds anything (a database restored without it is loaded again). */
  indexed(db: DbOrTx): Promise<boolean>;
  /** Replaces both tables' contents with `rows`. */
  load(tx: Tx, rows: Iterable<CatalogLoadRow>): Promise<void>;
  /** Gives the space of deleted rows back to the file: a database emptied of the catalogs shrinks to its own data. */
  compact(db: Db): Promise<void>;
  /** The keys of `catalog` matching every term, best first (bm25), at most `limit`. */
  search(db: DbOrTx, catalog: string, terms: SearchTerm[], limit: number): Promise<string[]>;
}

const INSERT_ENTRY = 'insert into catalog_entries (catalog, clave, descripcion, valid_from, valid_to, data) values (?, ?, ?, ?, ?, ?)';
const INSERT_SEARCH = 'insert into catalog_search (catalog, clave, texto) values (?, ?, ?)';

const sqlite: CatalogQueries = {
  indexed: async (db) => (await statement(db, 'select 1 from catalog_search limit 1').get()) !== undefined,
  // Some hundred thousand rows: one synchronous batch inside the transaction, not an await per row.
  load: (tx, rows) =>
    insertMany(tx, (run) => {
      run('delete from catalog_entries');
      run('delete from catalog_search');
      for (const r of rows) {
        run(INSERT_ENTRY, r.catalog, r.clave, r.descripcion, r.validFrom, r.validTo, JSON.stringify(r.data));
        if (r.searchText !== undefined) run(INSERT_SEARCH, r.catalog, r.clave, r.searchText);
      }
    }),
  // Deleted FTS5 rows stay in its index as delete markers until a merge ('optimize'); VACUUM then frees the pages.
  compact: async (db) => {
    await statement(db, "insert into catalog_search (catalog_search) values ('optimize')").run();
    await statement(db, 'vacuum').run();
  },
  // FTS5 terms, all required: "word"* for a prefix, "word" for a whole word.
  search: async (db, catalog, terms, limit) => {
    const match = terms.map((t) => (t.prefix ? `"${t.word}"*` : `"${t.word}"`)).join(' ');
    const hits = await statement(db, 'select clave from catalog_search where catalog_search match ? and catalog = ? order by rank limit ?').all<{
      clave: string;
    }>(match, catalog, limit);
    return hits.map((h) => h.clave);
  },
};

const unavailable = (): never => {
  throw new Error('the SAT catalogs live in a per-process SQLite database (catalogDb), never in PostgreSQL');
};
// The catalogs stay in SQLite on both engines (static data, FTS5 search): nothing asks PostgreSQL for them.
const postgres: CatalogQueries = { indexed: unavailable, load: unavailable, compact: unavailable, search: unavailable };

export const catalogQueries = (db: DbOrTx): CatalogQueries => forDialect(db, { sqlite, postgres });
