import { crc32, inflateSync } from 'node:zlib';

/**
 * Structural checks of an uploaded logo before any image library reads it. pdf-lib's PNG decoder loops forever on a
 * PNG whose image data is cut short (one request would block the whole process), and a JPEG cut short embeds as a
 * broken image; so every PNG chunk is read with its CRC, the image data is inflated with the exact size the header
 * implies, and a JPEG must have a frame header and end with its end-of-image marker. Both are bounded in pixels
 * and in decoded size, read from the header before anything is decompressed. Each function answers the
 * problem, or undefined when the file is whole.
 */

/** A logo is printed at 110 × 52 pt: this is plenty, and bounds the memory a decoder may need. */
export const MAX_LOGO_PIXELS = 2048;
/**
 * The pixels' size once decoded (width × height × channels × bytes per channel): the dimension cap alone lets a
 * 16-bit RGBA PNG decode to 32 MiB per render. 16 MiB is 2048 × 2048 in 8-bit RGBA (or CMYK).
 */
export const MAX_LOGO_DECODED_BYTES = 16 * 1024 * 1024;

function decodedSizeProblem(width: number, height: number, channels: number, bitsPerChannel: number): string | undefined {
  const bytes = width * height * channels * (bitsPerChannel > 8 ? 2 : 1);
  if (bytes <= MAX_LOGO_DECODED_BYTES) return undefined;
  const mib = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MiB`;
  return `decodes to ${mib(bytes)} (${width} × ${height} pixels × ${channels} channels × ${bitsPerChannel} bits): must be at most ${mib(MAX_LOGO_DECODED_BYTES)} decoded`;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

export const isPng = (bytes: Buffer) => bytes.subarray(0, 8).equals(PNG_SIGNATURE);
export const isJpeg = (bytes: Buffer) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;

export function pngProblem(bytes: Buffer): string | undefined {
  if (!isPng(bytes)) return 'is not a PNG';
  let pos = 8;
  let header: { width: number; height: number; depth: number; color: number; interlace: number } | undefined;
  let palette = false;
  let ended = false;
  const data: Buffer[] = [];
  while (!ended) {
    if (pos + 12 > bytes.length) return 'is cut short (no IEND chunk)';
    const length = bytes.readUInt32BE(pos);
    const type = bytes.toString('latin1', pos + 4, pos + 8);
    if (pos + 12 + length > bytes.length) return `is cut short (in its ${type} chunk)`;
    if (crc32(bytes.subarray(pos + 4, pos + 8 + length)) !== bytes.readUInt32BE(pos + 8 + length))
      return `is damaged (the CRC of its ${type} chunk does not match)`;
    const body = bytes.subarray(pos + 8, pos + 8 + length);
    if (!header && type !== 'IHDR') return 'is damaged (IHDR is not its first chunk)';
    if (type === 'IHDR') {
      if (header || length !== 13) return 'is damaged (bad IHDR chunk)';
      header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8]!, color: body[9]!, interlace: body[12]! };
    } else if (type === 'PLTE') palette = true;
    else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') ended = true;
    pos += 12 + length;
  }
  const { width, height, depth, color, interlace } = header!;
  if (width < 1 || height < 1) return 'is damaged (zero width or height)';
  if (width > MAX_LOGO_PIXELS || height > MAX_LOGO_PIXELS) return `must be at most ${MAX_LOGO_PIXELS} × ${MAX_LOGO_PIXELS} pixels`;
  if (!DEPTHS[color]?.includes(depth) || interlace > 1) return 'is damaged (unknown colour type or bit depth)';
  if (color === 3 && !palette) return 'is damaged (no palette)';
  if (data.length === 0) return 'is damaged (no image data)';
  const tooBig = decodedSizeProblem(width, height, CHANNELS[color]!, depth);
  if (tooBig) return tooBig;
  const bitsPerPixel = CHANNELS[color]! * depth;
  const rows = (w: number, h: number) => (w > 0 && h > 0 ? h * (1 + Math.ceil((w * bitsPerPixel) / 8)) : 0);
  const expected = interlace
    ? ADAM7.reduce((sum, [x0, y0, dx, dy]) => sum + rows(Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)), 0)
    : rows(width, height);
  let inflated: Buffer;
  try {
    inflated = inflateSync(Buffer.concat(data), { maxOutputLength: expected + 1 });
  } catch {
    return 'is damaged (its image data does not decompress)';
  }
  if (inflated.length !== expected) return 'is damaged (its image data does not match its size)';
  return undefined;
}

export function jpegProblem(bytes: Buffer): string | undefined {
  if (!isJpeg(bytes)) return 'is not a JPEG';
  let pos = 2;
  let frame = false;
  while (pos + 4 <= bytes.length) {
    if (bytes[pos] !== 0xff) return 'is damaged (a marker is missing)';
    const marker = bytes[pos + 1]!;
    if (marker === 0xff) {
      pos++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      pos += 2;
      continue;
    }
    const length = bytes.readUInt16BE(pos + 2);
    if (length < 2 || pos + 2 + length > bytes.length) return 'is cut short';
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC): the frame header with the image size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (length < 8) return 'is damaged (bad frame header)';
      const height = bytes.readUInt16BE(pos + 5);
      const width = bytes.readUInt16BE(pos + 7);
      if (width < 1 || height < 1) return 'is damaged (zero width or height)';
      if (width > MAX_LOGO_PIXELS || height > MAX_LOGO_PIXELS) return `must be at most ${MAX_LOGO_PIXELS} × ${MAX_LOGO_PIXELS} pixels`;
      const tooBig = decodedSizeProblem(width, height, bytes[pos + 9]!, bytes[pos + 4]!);
      if (tooBig) return tooBig;
      frame = true;
    }
    if (marker === 0xda) {
      if (!frame) return 'is damaged (no frame header before the image data)';
      const end = bytes.lastIndexOf(Buffer.from([0xff, 0xd9]));
      return end > pos + 2 + length ? undefined : 'is cut short (no end-of-image marker)';
    }
    pos += 2 + length;
  }
  return 'is cut short (no image data)';
}
