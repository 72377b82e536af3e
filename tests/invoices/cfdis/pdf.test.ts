import { beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePDFRawStream, PDFArray, type PDFDict, PDFDocument, PDFName, type PDFPage, type PDFRawStream } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { localDateTime } from '../../../src/cfdi/time.ts';
import { child, parseXml } from '../../../src/cfdi/xml.ts';
import { CORPUS, corpusResolver, EGRESOS, NOMINAS, PAGOS, TRASLADOS } from '../../cfdi/corpus.ts';
import { decodeQrs, expectedCfdiQr } from '../../cfdi/pdf/carta-porte.ts';
import { pdfPool } from '../../../src/invoices/cfdis/pdf-pool.ts';
import { concepto, createTestApp, ICV, ingreso, issuer, type Issuer, READY, smtpSink, TENANTS } from '../../helpers.ts';

/**
 * Acceptance (issue 7): the PDF of every corpus invoice and of a 300-concepto one carries the UUID, both RFCs, the
 * total, every description, both seals and the TFD cadena; its pages are numbered; no text leaves the page; the QR
 * code decodes to SAT's verification URL for the invoice. Text is read back with pdf.js and the QR with jsQR from
 * the rectangles in the content stream (independent of our code); poppler's pdftotext/pdftoppm and zbarimg check
 * the same when the machine has them.
 */
// No wake on enqueue: a queued invoice stays queued (no worker stamping it at once) while the test reads it.
const t = await createTestApp({ wakeOnEnqueue: false });
let key = '';
let eku: Issuer;
const FIXTURES = new URL('../../fixtures/branding/', import.meta.url).pathname;
const has = (tool: string) => Bun.which(tool) !== null;

beforeAll(async () => {
  eku = await issuer(t, READY);
  key = eku.key;
});

const get = (path: string, token = key) => t.app.request(`/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });

async function issue(body: Record<string, unknown>) {
  const res = await t.call('POST', '/cfdis', { token: key, body });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  const xml = await (await get(`/cfdis/${res.json.uuid}/xml`)).text();
  return { uuid: res.json.uuid as string, xml };
}

interface Item {
  str: string;
  transform: number[];
  width: number;
  height: number;
}
async function readPdf(bytes: Uint8Array) {
  const task = getDocument({ data: bytes.slice(), disableFontFace: true, useSystemFonts: false, verbosity: 0 });
  const doc = await task.promise;
  const pages: { items: Item[]; width: number; height: number }[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const { width, height } = page.getViewport({ scale: 1 });
    pages.push({ items: ((await page.getTextContent()).items as Item[]).filter((i) => i.str !== undefined), width, height });
  }
  await task.destroy();
  return pages;
}

/** A page's content streams, decompressed: its drawing operators as text. */
function pageOperators(pdf: PDFDocument, page: PDFPage): string {
  const contents = page.node.Contents();
  const streams = contents instanceof PDFArray ? contents.asArray().map((r) => pdf.context.lookup(r)) : [contents];
  return streams.map((s) => new TextDecoder().decode(decodePDFRawStream(s as PDFRawStream).decode())).join('\n');
}

/** The CFDI's QR (the first symbol: a Carta Porte document has a second one under it), decoded by jsQR. */
const decodeQr = async (bytes: Uint8Array) => (await decodeQrs(bytes))[0]?.text;

const grouped = (amount: string) => amount.replace(/^(\d+)/, (d) => d.replace(/\B(?=(\d{3})+(?!\d))/g, ','));
const squash = (s: string) => s.replace(/\s+/g, '');

/** Every check of acceptance items 1 and 2 on one invoice. */
async function checkPdf(uuid: string, xml: string) {
  const res = await get(`/cfdis/${uuid.toLowerCase()}/pdf`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  expect(res.headers.get('content-disposition')).toBe(`attachment; filename=${uuid}.pdf`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');

  const pages = await readPdf(bytes);
  const root = parseXml(xml);
  const tfd = child(child(root, 'cfdi:Complemento')!, 'tfd:TimbreFiscalDigital')!.attrs;
  const all = pages.map((p) => p.items.map((i) => i.str).join(' ')).join(' ');
  expect(all).toContain(uuid);
  expect(all).toContain(child(root, 'cfdi:Emisor')!.attrs.Rfc!);
  expect(all).toContain(child(root, 'cfdi:Receptor')!.attrs.Rfc!);
  const tipo = root.attrs.TipoDeComprobante;
  const complemento = child(root, 'cfdi:Complemento')!;
  if (tipo === 'P') {
    // No money lines for a Pago: its payments and the documents they pay instead.
    for (const pago of child(complemento, 'pago20:Pagos')!.children.filter((n) => n.name === 'pago20:Pago')) {
      expect(all).toContain(grouped(pago.attrs.Monto!));
      for (const d of pago.children.filter((n) => n.name === 'pago20:DoctoRelacionado')) {
        expect(squash(all)).toContain(d.attrs.IdDocumento!);
        expect(all).toContain(grouped(d.attrs.ImpPagado!));
        expect(all).toContain(grouped(d.attrs.ImpSaldoInsoluto!));
      }
    }
  } else if (tipo === 'T') {
    expect(all).toContain('traslado');
  } else {
    expect(all).toContain(grouped(root.attrs.Total!));
  }
  if (tipo === 'N') {
    const nomina = child(complemento, 'nomina12:Nomina')!;
    expect(all).toContain(child(nomina, 'nomina12:Receptor')!.attrs.Curp!);
    for (const group of nomina.children) for (const line of group.children) if (line.attrs.Concepto) expect(all).toContain(line.attrs.Concepto);
  }
  // Descriptions wrap over lines (and pages): compare the description column's text (left edge at x = 180.5, where
  // nothing else starts) without whitespace.
  const descriptionColumn = squash(
    pages.flatMap((p) => p.items.filter((i) => Math.abs(i.transform[4]! - 180.5) < 0.01 && i.str !== 'Descripción').map((i) => i.str)).join(''),
  );
  let from = 0;
  for (const c of child(root, 'cfdi:Conceptos')!.children) {
    const at = descriptionColumn.indexOf(squash(c.attrs.Descripcion!), from);
    expect(at).toBeGreaterThanOrEqual(0);
    from = at;
  }
  const compact = squash(all);
  expect(compact).toContain(root.attrs.Sello!);
  expect(compact).toContain(tfd.SelloSAT!);
  const tfdCadena = `||1.1|${tfd.UUID}|${tfd.FechaTimbrado}|${tfd.RfcProvCertif}|${tfd.SelloCFD}|${tfd.NoCertificadoSAT}||`;
  expect(compact).toContain(tfdCadena);
  expect(all).toContain('Este documento es una representación impresa de un CFDI');
  pages.forEach((p, i) => {
    const text = p.items.map((it) => it.str).join(' ');
    expect(text).toContain(`Página ${i + 1} de ${pages.length}`);
    expect(text).toContain('SIN VALIDEZ FISCAL — SANDBOX');
    expect([p.width, p.height]).toEqual([612, 792]);
    // Every run of text inside the page box: its four corners, through its text matrix (the sandbox mark is rotated).
    for (const it of p.items) {
      if (!it.str.trim()) continue;
      const [a, b, c, d, e, f] = it.transform as [number, number, number, number, number, number];
      const along = Math.hypot(a, b);
      const up = Math.hypot(c, d);
      const corners = [
        [e, f],
        [e + (it.width * a) / along, f + (it.width * b) / along],
        [e + (it.height * c) / up, f + (it.height * d) / up],
        [e + (it.width * a) / along + (it.height * c) / up, f + (it.width * b) / along + (it.height * d) / up],
      ];
      for (const [x, y] of corners) {
        if (x! < 0 || x! > p.width || y! < 0 || y! > p.height) throw new Error(`text "${it.str}" leaves page ${i + 1} at (${x}, ${y})`);
      }
    }
  });
  expect(await decodeQr(bytes)).toBe(expectedCfdiQr(xml));
  return { bytes, pages: pages.length };
}

const bigInvoice = {
  tipo: 'I',
  forma_pago: '03',
  receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' },
  conceptos: Array.from({ length: 300 }, (_, i) => ({
    clave_prod_serv: '84111506',
    clave_unidad: 'E48',
    cantidad: (i % 5) + 1,
    valor_unitario: `${(i * 3.17 + 1).toFixed(2)}`,
    descripcion:
      i % 25 === 0
        ? `Partida ${i + 1}: servicio de consultoría en facturación electrónica con acentos y eñes (¿Cómo? ¡Así! Ñandú, pingüino, acción). `.repeat(8).trim()
        : `Partida ${i + 1}: servicio mensual de timbrado`,
    impuestos: {
      traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }],
      ...(i % 7 === 0 ? { retenciones: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' }] } : {}),
    },
  })),
};

const resolve = corpusResolver(
  async (body) => (await issue(body)).uuid,
  () => localDateTime(new Date(t.clock.now.getTime() - 2 * 3600_000), '42501'),
);

describe('invoice PDF', () => {
  for (const [name, request] of [...CORPUS, ...EGRESOS, ...PAGOS, ...NOMINAS, ...TRASLADOS]) {
    test(`corpus: ${name}`, async () => {
      const { uuid, xml } = await issue(await resolve(request));
      await checkPdf(uuid, xml);
    });
  }

  let big: { uuid: string; xml: string; bytes: Uint8Array } | undefined;
  test('a 300-concepto invoice: several numbered pages, long descriptions wrapped across lines and pages', async () => {
    const { uuid, xml } = await issue(bigInvoice);
    const { bytes, pages } = await checkPdf(uuid, xml);
    expect(pages).toBeGreaterThanOrEqual(5);
    big = { uuid, xml, bytes };
  }, 30_000);

  test.skipIf(!has('pdftotext') || !has('pdftoppm') || !has('zbarimg'))(
    'poppler and zbar agree: text inside the page box, QR decodes to the verification URL',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'cfdi-pdf-'));
      try {
        writeFileSync(join(dir, 'big.pdf'), big!.bytes);
        const bbox = Bun.spawnSync(['pdftotext', '-bbox', join(dir, 'big.pdf'), '-']).stdout.toString();
        const pageBoxes = [...bbox.matchAll(/<page width="([\d.]+)" height="([\d.]+)">/g)];
        expect(pageBoxes.length).toBeGreaterThanOrEqual(5);
        const words = [...bbox.matchAll(/<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g)];
        expect(words.length).toBeGreaterThan(3000);
        for (const w of words) {
          const [xMin, yMin, xMax, yMax] = w.slice(1, 5).map(Number) as [number, number, number, number];
          if (xMin < 0 || yMin < 0 || xMax > 612 || yMax > 792) throw new Error(`pdftotext: "${w[5]}" outside the page (${xMin}, ${yMin}, ${xMax}, ${yMax})`);
        }
        const text = Bun.spawnSync(['pdftotext', join(dir, 'big.pdf'), '-']).stdout.toString();
        expect(text).toContain(big!.uuid);
        expect(text).toContain('Página 1 de');
        // The page with the stamp block (the seals may run onto a later page).
        const pageOf = (n: number) => Bun.spawnSync(['pdftotext', '-f', String(n), '-l', String(n), join(dir, 'big.pdf'), '-']).stdout.toString();
        const stampPage = [...Array(pageBoxes.length).keys()].map((i) => i + 1).find((n) => pageOf(n).includes('TIMBRE FISCAL DIGITAL'))!;
        Bun.spawnSync(['pdftoppm', '-r', '200', '-png', '-f', String(stampPage), '-l', String(stampPage), join(dir, 'big.pdf'), join(dir, 'page')]);
        const png = join(dir, `page-${String(stampPage).padStart(String(pageBoxes.length).length, '0')}.png`);
        const decoded = Bun.spawnSync(['zbarimg', '-q', '--raw', png]).stdout.toString().trim();
        expect(decoded).toBe(expectedCfdiQr(big!.xml));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    30_000,
  );

  test('another tenant, or the other environment, gets 404; a queued invoice has no PDF yet (404 saying so)', async () => {
    const { uuid } = await issue(CORPUS[1]![1]);
    const other = await issuer(t, { tenant: TENANTS.FUNK });
    const otherKey = (await other.createKey()).key;
    expect((await get(`/cfdis/${uuid}/pdf`, otherKey)).status).toBe(404);
    const live = (await eku.createKey('live')).key;
    expect((await get(`/cfdis/${uuid}/pdf`, live)).status).toBe(404);

    const queued = await t.call('POST', '/cfdis', { token: key, body: CORPUS[1]![1], headers: { 'x-sandbox-scenario': 'pac_unavailable' } });
    expect(queued.status).toBe(202);
    for (const path of [`/cfdis/${queued.json.id}/pdf`, `/cfdis/${queued.json.id}/xml`]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      const body = (await res.json()) as any;
      expect(body.error.message).toContain('queued for stamping');
      expect(body.error.message).toContain('no UUID');
    }
    const unknown = await get('/cfdis/00000000-0000-4000-8000-000000000000/pdf');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.message).toBe('CFDI not found');
    const bad = await get('/cfdis/not-a-uuid/pdf');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.details[0].field).toBe('uuid');
  });
});

describe('tenant branding on the PDF', () => {
  const upload = (file: Uint8Array | string, token = key, name = 'logo.png') => {
    const form = new FormData();
    form.append('logo', new File([typeof file === 'string' ? file : new Uint8Array(file)], name));
    return t.app.request('/api/v1/tenants/me/logo', { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: form });
  };
  const pageOps = async (bytes: Uint8Array) => {
    const pdf = await PDFDocument.load(bytes);
    const page = pdf.getPage(0);
    const ops = pageOperators(pdf, page);
    const xobjects = page.node.Resources()?.get(PDFName.of('XObject'));
    return { ops, images: xobjects ? (pdf.context.lookup(xobjects) as PDFDict).keys().length : 0 };
  };

  test('logo (PNG or JPEG) and accent colour appear on the PDF; too large 413, not an image 422; removable', async () => {
    const { uuid } = await issue(CORPUS[1]![1]);
    const plain = new Uint8Array(await (await get(`/cfdis/${uuid}/pdf`)).arrayBuffer());
    expect((await pageOps(plain)).images).toBe(0);

    const png = readFileSync(join(FIXTURES, 'logo.png'));
    const up = await upload(png);
    expect(up.status).toBe(200);
    const tenant = (await up.json()) as any;
    expect(tenant.branding.logo).toEqual({ content_type: 'image/png', size: png.length, url: '/api/v1/tenants/me/logo' });
    const stored = await get('/tenants/me/logo');
    expect(stored.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await stored.arrayBuffer()).equals(png)).toBe(true);

    const patched = await t.call('PATCH', '/tenants/me', { token: key, body: { accent_color: '#ff0000' } });
    expect(patched.status).toBe(200);
    expect(patched.json.branding.accent_color).toBe('#FF0000');
    const branded = new Uint8Array(await (await get(`/cfdis/${uuid}/pdf`)).arrayBuffer());
    const { ops, images } = await pageOps(branded);
    expect(images).toBe(1);
    expect(ops).toMatch(/\bDo\b/); // the logo is drawn
    expect(ops).toContain('1 0 0 rg'); // the accent colour fills the title bar
    await checkPdf(uuid, await (await get(`/cfdis/${uuid}/xml`)).text());

    const jpg = readFileSync(join(FIXTURES, 'logo.jpg'));
    const upJpg = await upload(jpg, key, 'logo.jpg');
    expect(upJpg.status).toBe(200);
    expect(((await upJpg.json()) as any).branding.logo.content_type).toBe('image/jpeg');
    expect((await get(`/cfdis/${uuid}/pdf`)).status).toBe(200);

    const tooLarge = await upload(new Uint8Array(300 * 1024));
    expect(tooLarge.status).toBe(413);
    const notImage = await upload('GIF89a not really');
    expect(notImage.status).toBe(422);
    expect(((await notImage.json()) as any).error.details).toEqual([{ field: 'logo', issue: 'must be a PNG or JPEG image' }]);
    const brokenPng = await upload(new Uint8Array([...png.subarray(0, 40)]));
    expect(brokenPng.status).toBe(422);
    const badColour = await t.call('PATCH', '/tenants/me', { token: key, body: { accent_color: 'red' } });
    expect(badColour.status).toBe(422);
    expect(badColour.json.error.details[0].field).toBe('accent_color');

    // Another tenant sees none of it.
    const other = await issuer(t, { tenant: TENANTS.AAA });
    expect((await get('/tenants/me/logo', other.token)).status).toBe(404);
    expect((await t.call('GET', '/tenants/me', { token: other.token })).json.branding).toEqual({ accent_color: null, logo: null });

    const removed = await t.app.request('/api/v1/tenants/me/logo', { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as any).branding.logo).toBeNull();
    expect((await get('/tenants/me/logo')).status).toBe(404);
    expect((await t.call('PATCH', '/tenants/me', { token: key, body: { accent_color: null } })).json.branding.accent_color).toBeNull();
  });

  test('only an ADMIN (or an API key) may change the logo', async () => {
    const viewer = await eku.userWithRole('VIEWER');
    const res = await upload(readFileSync(join(FIXTURES, 'logo.png')), viewer.token);
    expect(res.status).toBe(403);
  });
});

describe('the PDF cache (issue 35)', () => {
  const textOf = async (bytes: Uint8Array) => (await readPdf(bytes)).flatMap((p) => p.items.map((i) => i.str)).join(' ');
  const pdfOf = async (uuid: string) => {
    const res = await get(`/cfdis/${uuid}/pdf`);
    expect(res.status).toBe(200);
    return new Uint8Array(await res.arrayBuffer());
  };

  test('rendered once per state: again from the cache, anew once cancelled and once the branding changes', async () => {
    const issued = await t.call('POST', '/cfdis', { token: key, body: { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [concepto()] } });
    expect(issued.status).toBe(201);
    const { id, uuid } = issued.json;
    const renders = pdfPool.started;
    const vigente = await pdfOf(uuid);
    expect(await pdfOf(uuid)).toEqual(vigente);
    expect(pdfPool.started).toBe(renders + 1);
    expect(await textOf(vigente)).not.toContain('CFDI CANCELADO');

    const cancelled = await t.call('POST', `/cfdis/${id}/cancel`, { token: key, body: { motivo: '02' } });
    expect([cancelled.status, cancelled.json.cfdi_status]).toEqual([200, 'cancelado']);
    const marked = await pdfOf(uuid);
    expect(await textOf(marked)).toContain('CFDI CANCELADO');
    expect(await pdfOf(uuid)).toEqual(marked);
    expect(pdfPool.started).toBe(renders + 2);

    expect((await t.call('PATCH', '/tenants/me', { token: key, body: { accent_color: '#00ff00' } })).status).toBe(200);
    const green = await PDFDocument.load(await pdfOf(uuid));
    expect(pageOperators(green, green.getPage(0))).toContain('0 1 0 rg'); // the accent colour fills the title bar
    expect(pdfPool.started).toBe(renders + 3);
    expect((await t.call('PATCH', '/tenants/me', { token: key, body: { accent_color: null } })).status).toBe(200);
  });

  test('the emailed attachment is the cached PDF: no render of its own', async () => {
    const sink = await smtpSink();
    try {
      const mailing = await createTestApp({ wakeOnEnqueue: false, smtp: { ...sink.smtp, testCapture: 'captura@example.com' } }); // test mode mails any address
      const { key: token } = await issuer(mailing, READY);
      const issued = await mailing.call('POST', '/cfdis', { token, body: ingreso({ email_to: ['compras@example.com'] }) });
      expect(issued.status).toBe(201);
      const renders = pdfPool.started;
      const pdf = await mailing.app.request(`/api/v1/cfdis/${issued.json.uuid}/pdf`, { headers: { authorization: `Bearer ${token}` } });
      const bytes = Buffer.from(await pdf.arrayBuffer());
      await mailing.app.worker.drain();
      expect(sink.received).toHaveLength(1);
      expect(sink.received[0]!.attachments.find((a) => a.filename === `${issued.json.uuid}.pdf`)!.content.equals(bytes)).toBe(true);
      expect(pdfPool.started).toBe(renders + 1);
    } finally {
      await sink.close();
    }
  });
});
