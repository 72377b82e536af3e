import { PDFDocument, rgb, type Color, type PDFFont, type PDFImage } from 'pdf-lib';
import { embedFonts, type Face } from './fonts.ts';

/** The tenant's look on its printed documents: a logo in the header, an accent colour for rules and titles. */
export interface Branding {
  logo?: { bytes: Uint8Array; type: 'image/png' | 'image/jpeg' };
  accentColor?: string;
}

function parseColor(hex: string | undefined): Color {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex ?? '');
  if (!m) return rgb(0.11, 0.3, 0.55);
  return rgb(parseInt(m[1]!, 16) / 255, parseInt(m[2]!, 16) / 255, parseInt(m[3]!, 16) / 255);
}

/**
 * A new printed document for the stamped document `uuid` (its font subsets are named after it): the fonts embedded,
 * the accent colour, the logo and the metadata; every printed representation (CFDI, Retenciones) starts here.
 */
export async function openDocument(
  uuid: string,
  branding: Branding | undefined,
  metadata: { title: string; subject: string },
): Promise<{ doc: PDFDocument; fonts: Record<Face, PDFFont>; accent: Color; logo?: PDFImage }> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const fonts = await embedFonts(doc, uuid);
  const accent = parseColor(branding?.accentColor);
  let logo: PDFImage | undefined;
  if (branding?.logo) {
    logo = branding.logo.type === 'image/png' ? await doc.embedPng(branding.logo.bytes) : await doc.embedJpg(branding.logo.bytes);
  }
  doc.setTitle(metadata.title);
  doc.setSubject(metadata.subject);
  doc.setProducer('cfdi-api');
  doc.setCreator('cfdi-api');
  return { doc, fonts, accent, logo };
}
