import type { DbOrTx } from './connection.ts';
import { dialectOf, type Dialect } from './engine.ts';

/**
 * A module's engine-specific queries (its `queries.ts`) for this database: one implementation per dialect, so a
 * second engine is a second implementation of each module's interface, checked by the compiler.
 */
export function forDialect<T>(db: DbOrTx, implementations: { readonly [D in Dialect]: T }): T {
  return implementations[dialectOf(db)];
}
