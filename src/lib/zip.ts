import { unzipSync } from 'fflate';
import { invalidInput } from './service-error.ts';

export interface ZipLimits {
  /** Entries a ZIP may hold (directories included). */
  maxEntries: number;
  /** Uncompressed bytes of all entries together, as their headers declare them. */
  maxTotalBytes: number;
}

export interface ZipEntry {
  name: string;
  bytes: Uint8Array;
}

/**
 * The files of a ZIP (a received-CFDI upload, a Descarga Masiva package), parsed by fflate. The limits are checked on the
 * sizes the headers declare before anything is inflated, and fflate inflates each entry into a buffer of its declared
 * size, so a ZIP that lies about its sizes cannot grow past them (a ZIP bomb). Directories are skipped; an entry's
 * name is only a label (nothing is written to disk). A broken ZIP is a 400 on `field`.
 */
export function readZip(zip: Uint8Array, limits: ZipLimits, field = 'file'): ZipEntry[] {
  let entries = 0;
  let total = 0;
  let refused: string | undefined;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip, {
      filter(file) {
        entries++;
        total += file.originalSize;
        if (entries > limits.maxEntries) refused ??= `holds more than ${limits.maxEntries} files`;
        else if (total > limits.maxTotalBytes) refused ??= `unpacks to more than ${limits.maxTotalBytes} bytes`;
        return refused === undefined && !file.name.endsWith('/');
      },
    });
  } catch (err) {
    throw invalidInput('Not a readable ZIP', [{ field, issue: `not a readable ZIP (${err instanceof Error ? err.message : String(err)})` }]);
  }
  if (refused) throw invalidInput('ZIP too large', [{ field, issue: `the ZIP ${refused}` }]);
  return Object.entries(files).map(([name, bytes]) => ({ name, bytes }));
}
