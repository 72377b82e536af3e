/**
 * The keys of the session-level advisory locks instances take on a shared PostgreSQL database, in one list so no
 * two purposes share a key by accident (a lock is per database: these never meet another application's).
 */

/** Held while migrations apply. */
export const MIGRATION_LOCK = 0x43464449; // "CFDI"
/** Held while the one-time boot work runs (src/boot.ts): after the migrations, apart from them. */
export const BOOT_WORK_LOCK = 0x43464442; // "CFDB"
