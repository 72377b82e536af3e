import { strToU8, unzipSync, zipSync } from 'fflate';

// The mock's packages are fixed bytes (a fixed time), as SAT serves the same package on each download.
const MTIME = new Date('2025-01-01T00:00:00');

/** A ZIP of the files, each deflated (fflate, as the product reads them with). */
export function zipFiles(files: { name: string; data: Uint8Array | string }[]): Buffer {
  const entries = Object.fromEntries(files.map((f) => [f.name, typeof f.data === 'string' ? strToU8(f.data) : f.data]));
  return Buffer.from(zipSync(entries, { mtime: MTIME }));
}

/** A ZIP's files by name, as a client reads them. */
export function unzipFiles(zip: Uint8Array): Map<string, Buffer> {
  return new Map(Object.entries(unzipSync(zip)).map(([name, bytes]) => [name, Buffer.from(bytes)]));
}
