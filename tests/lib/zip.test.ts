import { describe, expect, test } from 'bun:test';
import { zipSync } from 'fflate';
import { readZip } from '../../src/lib/zip.ts';
import { ServiceError } from '../../src/lib/service-error.ts';

const LIMITS = { maxEntries: 3, maxTotalBytes: 1_000 };
const bytes = (s: string) => new TextEncoder().encode(s);

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof ServiceError) return `${err.details[0]?.field}: ${err.details[0]?.issue}`;
    throw err;
  }
  throw new Error('not refused');
}

describe('readZip', () => {
  test('gives each file by name, skipping directories', () => {
    const zip = zipSync({ 'a.xml': bytes('<a/>'), 'dir/': new Uint8Array(), 'dir/b.xml': bytes('<b/>') });
    const entries = readZip(zip, LIMITS);
    expect(entries.map((e) => [e.name, new TextDecoder().decode(e.bytes)])).toEqual([
      ['a.xml', '<a/>'],
      ['dir/b.xml', '<b/>'],
    ]);
  });

  test('refuses more entries than allowed, naming the field', () => {
    const zip = zipSync({ a: bytes('1'), b: bytes('2'), c: bytes('3'), d: bytes('4') });
    expect(refusal(() => readZip(zip, LIMITS, 'files'))).toBe('files: the ZIP holds more than 3 files');
  });

  test('refuses what unpacks past the size limit before inflating it (a ZIP bomb)', () => {
    const zip = zipSync({ big: new Uint8Array(5_000) }, { level: 9 });
    expect(zip.length).toBeLessThan(200);
    expect(refusal(() => readZip(zip, LIMITS))).toBe('file: the ZIP unpacks to more than 1000 bytes');
  });

  test('a header that under-declares its size cannot grow past it', () => {
    const zip = zipSync({ big: new Uint8Array(5_000).fill(65) }, { level: 9 });
    // Rewrite both declared uncompressed sizes (local header at 22, central directory at +24) to 10 bytes.
    const lied = Buffer.from(zip);
    lied.writeUInt32LE(10, 22);
    const central = lied.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    lied.writeUInt32LE(10, central + 24);
    let size: number | undefined;
    try {
      size = readZip(lied, LIMITS)[0]?.bytes.length;
    } catch (err) {
      expect(err).toBeInstanceOf(ServiceError);
    }
    if (size !== undefined) expect(size).toBeLessThanOrEqual(10);
  });

  test('a file that is not a ZIP is a 400, not a crash', () => {
    expect(refusal(() => readZip(bytes('<cfdi:Comprobante/>'), LIMITS))).toStartWith('file: not a readable ZIP');
  });
});
