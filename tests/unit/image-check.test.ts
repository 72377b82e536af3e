import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { jpegProblem, MAX_LOGO_PIXELS, pngProblem } from '../../src/auth/tenants/image-check.ts';
import { createTestApp } from '../helpers.ts';

const FIXTURES = new URL('../fixtures/branding/', import.meta.url).pathname;
const PNG = readFileSync(`${FIXTURES}logo.png`);
const JPEG = readFileSync(`${FIXTURES}logo.jpg`);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}
/** A grey PNG of the given size, its image data as given (whole by default). */
function png(width: number, height: number, pixels = deflateSync(Buffer.alloc(height * (1 + width)))): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([PNG.subarray(0, 8), chunk('IHDR', ihdr), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

describe('logo checks (before pdf-lib reads it)', () => {
  test('whole images pass', () => {
    expect(pngProblem(PNG)).toBeUndefined();
    expect(jpegProblem(JPEG)).toBeUndefined();
    expect(pngProblem(png(40, 20))).toBeUndefined();
  });

  test('a PNG cut anywhere, or cut in the middle with its end kept, or with a flipped byte, is refused', () => {
    for (let n = 8; n < PNG.length; n += 3) expect(pngProblem(PNG.subarray(0, n))).toBeString();
    expect(pngProblem(PNG.subarray(0, 60))).toContain('cut short');
    expect(pngProblem(Buffer.concat([PNG.subarray(0, 60), PNG.subarray(PNG.length - 12)]))).toBeString();
    const flipped = Buffer.from(PNG);
    flipped[60] = flipped[60]! ^ 0xff;
    expect(pngProblem(flipped)).toContain('CRC');
  });

  test('image data that decompresses to the wrong size, or a huge canvas, is refused', () => {
    expect(pngProblem(png(40, 20, deflateSync(Buffer.alloc(10))))).toContain('does not match its size');
    expect(pngProblem(png(40, 20, Buffer.from('not zlib')))).toContain('does not decompress');
    expect(pngProblem(png(MAX_LOGO_PIXELS + 1, 1))).toContain(`${MAX_LOGO_PIXELS} × ${MAX_LOGO_PIXELS}`);
  });

  test('a JPEG cut anywhere is refused', () => {
    for (let n = 3; n < JPEG.length; n += Math.max(1, Math.floor(JPEG.length / 400))) expect(jpegProblem(JPEG.subarray(0, n))).toBeString();
    expect(jpegProblem(JPEG.subarray(0, 300))).toContain('cut short');
    expect(jpegProblem(JPEG.subarray(0, JPEG.length - 1))).toBeString();
  });

  test('through the API: the PNG that used to hang the process answers 422 at once', async () => {
    const t = createTestApp();
    const admin = await t.register();
    const upload = (bytes: Buffer) => {
      const form = new FormData();
      form.append('logo', new File([new Uint8Array(bytes)], 'logo.png'));
      return t.app.request('/api/v1/tenants/me/logo', { method: 'PUT', headers: { authorization: `Bearer ${admin.token}` }, body: form });
    };
    const res = await upload(PNG.subarray(0, 60));
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).error.details[0]).toEqual({ field: 'logo', issue: 'PNG is cut short (in its IDAT chunk)' });
    expect((await upload(JPEG.subarray(0, 300))).status).toBe(422);
    expect((await upload(PNG)).status).toBe(200);
  });
});
