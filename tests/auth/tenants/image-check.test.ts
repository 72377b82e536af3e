import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { jpegProblem, MAX_LOGO_PIXELS, pngProblem } from '../../../src/auth/tenants/image-check.ts';
import { createTestApp, issuer } from '../../helpers.ts';

const FIXTURES = new URL('../../fixtures/branding/', import.meta.url).pathname;
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
/** A grey PNG of the given size, its image data as given (whole by default); or of another colour type and depth. */
function png(width: number, height: number, pixels = deflateSync(Buffer.alloc(height * (1 + width))), { depth = 8, color = 0 } = {}): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = color; // 0 greyscale, 6 RGBA
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

  test('a 2048 × 2048 16-bit RGBA PNG (whole, within the pixel cap) is refused for its decoded size: 32 MiB, over 16 MiB', () => {
    const rgba16 = (side: number) => png(side, side, deflateSync(Buffer.alloc(side * (1 + side * 8)), { level: 9 }), { depth: 16, color: 6 });
    expect(pngProblem(rgba16(2048))).toBe('decodes to 32 MiB (2048 × 2048 pixels × 4 channels × 16 bits): must be at most 16 MiB decoded');
    // The header decides, before any decompression: image data that would not even inflate gets the same answer.
    expect(pngProblem(png(2048, 2048, Buffer.from('not zlib'), { depth: 16, color: 6 }))).toContain('decodes to 32 MiB');
    expect(pngProblem(rgba16(1024))).toBeUndefined(); // 8 MiB
    expect(pngProblem(png(2048, 2048, deflateSync(Buffer.alloc(2048 * (1 + 2048 * 4))), { color: 6 }))).toBeUndefined(); // 8-bit RGBA: 16 MiB
    // A 12-bit JPEG frame of 2048 × 2048 × 3 components: 24 MiB decoded.
    const sof = JPEG.indexOf(Buffer.from([0xff, 0xc0]));
    const jpeg12 = Buffer.from(JPEG);
    jpeg12[sof + 4] = 12;
    jpeg12.writeUInt16BE(2048, sof + 5);
    jpeg12.writeUInt16BE(2048, sof + 7);
    expect(jpegProblem(jpeg12)).toContain('decodes to 24 MiB');
  });

  test('a JPEG cut anywhere is refused', () => {
    for (let n = 3; n < JPEG.length; n += Math.max(1, Math.floor(JPEG.length / 400))) expect(jpegProblem(JPEG.subarray(0, n))).toBeString();
    expect(jpegProblem(JPEG.subarray(0, 300))).toContain('cut short');
    expect(jpegProblem(JPEG.subarray(0, JPEG.length - 1))).toBeString();
  });

  test('through the API: the PNG that used to hang the process answers 422 at once', async () => {
    const t = await createTestApp();
    const admin = await issuer(t);
    const upload = (bytes: Buffer) => {
      const form = new FormData();
      form.append('logo', new File([new Uint8Array(bytes)], 'logo.png'));
      return t.app.request('/api/v1/tenants/me/logo', { method: 'PUT', headers: { authorization: `Bearer ${admin.token}` }, body: form });
    };
    const res = await upload(PNG.subarray(0, 60));
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).error.details[0]).toEqual({ field: 'logo', issue: 'PNG is cut short (in its IDAT chunk)' });
    expect((await upload(JPEG.subarray(0, 300))).status).toBe(422);
    const huge = await upload(png(2048, 2048, deflateSync(Buffer.alloc(2048 * (1 + 2048 * 8)), { level: 9 }), { depth: 16, color: 6 }));
    expect(huge.status).toBe(422);
    expect(((await huge.json()) as any).error.details).toEqual([{ field: 'logo', issue: expect.stringContaining('PNG decodes to 32 MiB') }]);
    expect((await upload(PNG)).status).toBe(200);
  });
});
