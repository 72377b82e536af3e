import { afterAll, describe, expect, test } from 'bun:test';
import { consultSatRetencion } from '../../src/pac/sat-retenciones.ts';
import { startRetencionesPage } from './sat-retenciones-mock.ts';

/** consultSatRetencion against a mock of SAT's verification page for Retenciones: each answer it can read, and each it must not guess from. */
const page = startRetencionesPage();
afterAll(() => page.stop());

const EMISOR = 'EKU9003173C9';
const RECEPTOR = 'XOJI740919U48';
let serial = 0;
const newUuid = () => `5FB2822E-396D-4725-8521-CDC4BDD2${String(++serial).padStart(4, '0')}`;
const ask = (uuid: string, rfcReceptor: string | null = RECEPTOR, o: { timeoutMs?: number } = {}) =>
  consultSatRetencion({ uuid, rfcEmisor: EMISOR, rfcReceptor }, { url: page.url, ...o });
/** Serves `html` for the next requests, then SAT's page again. */
async function serving<T>(answer: typeof page.control.answer, run: () => Promise<T>): Promise<T> {
  page.control.answer = answer;
  try {
    return await run();
  } finally {
    page.control.answer = 'page';
  }
}

describe('what the page says', () => {
  test('Vigente: asked with folio, rfcEmisor and rfcReceptor', async () => {
    const uuid = newUuid();
    page.control.known.set(uuid, { rfcEmisor: EMISOR, rfcReceptor: RECEPTOR, estado: 'Vigente' });
    expect(await ask(uuid.toLowerCase())).toEqual({ ok: true, status: { estado: 'Vigente', estatusCancelacion: null, fechaCancelacion: null } });
    const sent = page.control.requests.at(-1)!;
    expect(Object.fromEntries(sent)).toEqual({ folio: uuid.toLowerCase(), rfcEmisor: EMISOR, rfcReceptor: RECEPTOR });
  });

  test("Cancelado: its date, SAT's Mexico City wall clock, as an instant", async () => {
    const uuid = newUuid();
    page.control.known.set(uuid, { rfcEmisor: EMISOR, rfcReceptor: RECEPTOR, estado: 'Cancelado', fechaCancelacion: '2025-03-01T10:00:00' });
    expect(await ask(uuid)).toEqual({ ok: true, status: { estado: 'Cancelado', estatusCancelacion: null, fechaCancelacion: '2025-03-01T16:00:00.000Z' } });
  });

  test('not registered: No Encontrado (another RFC is not registered either)', async () => {
    expect(await ask(newUuid())).toEqual({ ok: true, status: { estado: 'No Encontrado', estatusCancelacion: null, fechaCancelacion: null } });
    const uuid = newUuid();
    page.control.known.set(uuid, { rfcEmisor: EMISOR, rfcReceptor: RECEPTOR, estado: 'Vigente' });
    expect(await ask(uuid, 'AAA010101AAA')).toMatchObject({ ok: true, status: { estado: 'No Encontrado' } });
  });

  test('a receptor Extranjero: rfcReceptor sent empty', async () => {
    const uuid = newUuid();
    page.control.known.set(uuid, { rfcEmisor: EMISOR, rfcReceptor: '', estado: 'Vigente' });
    expect(await ask(uuid, null)).toMatchObject({ ok: true, status: { estado: 'Vigente' } });
    expect(page.control.requests.at(-1)!.get('rfcReceptor')).toBe('');
  });

  test('character references in labels and values are read as text', async () => {
    const uuid = newUuid();
    const html = page
      .resultPage(uuid, { rfcEmisor: EMISOR, rfcReceptor: RECEPTOR, estado: 'Vigente' })
      .replace('Estado CFDI Retenci&oacute;n', 'Estado CFDI Retenci&#243;n')
      .replace('<span>Vigente</span>', '<span>&#x56;igente</span>');
    expect(await serving({ html }, () => ask(uuid))).toMatchObject({ ok: true, status: { estado: 'Vigente' } });
  });
});

describe('never a guess: retryable', () => {
  const known = { rfcEmisor: EMISOR, rfcReceptor: RECEPTOR };
  const unreadable: [string, (uuid: string) => string, string][] = [
    ['a page of another shape (a captcha, an error page)', () => '<html><body><form id="captcha">Escriba el texto</form></body></html>', 'neither'],
    [
      'an estado SAT is not known to show',
      (uuid) => page.resultPage(uuid, { ...known, estado: 'Vigente' }).replace('<span>Vigente</span>', '<span>En proceso</span>'),
      '"En proceso"',
    ],
    ['Cancelado without its date', (uuid) => page.resultPage(uuid, { ...known, estado: 'Cancelado', fechaCancelacion: '' }), 'readable date'],
    [
      'Cancelado with a date in another form',
      (uuid) => page.resultPage(uuid, { ...known, estado: 'Cancelado', fechaCancelacion: '01/03/2025 10:00' }),
      '01/03/2025',
    ],
    ['a page about another folio', () => page.resultPage(newUuid(), { ...known, estado: 'Vigente' }), 'not '],
    [
      'a heading without its value',
      (uuid) => page.resultPage(uuid, { ...known, estado: 'Vigente' }).replace(/<td>\s*<span>\$12,500.00<\/span>\s*<\/td>/, ''),
      '10 headings for 9 values',
    ],
    [
      'no estado',
      (uuid) => page.resultPage(uuid, { ...known, estado: 'Vigente' }).replace('Estado CFDI Retenci&oacute;n', 'Estatus'),
      'has no "Estado CFDI Retención"',
    ],
    ['both a result and the notice', (uuid) => `${page.resultPage(uuid, { ...known, estado: 'Vigente' })}<div class="noresultados">x</div>`, 'both'],
  ];
  for (const [what, html, says] of unreadable)
    test(`${what}: not recognised`, async () => {
      const uuid = newUuid();
      const result = await serving({ html: html(uuid) }, () => ask(uuid));
      expect(result).toMatchObject({ ok: false, retryable: true });
      expect(result.ok === false && result.message).toStartWith("SAT's Retenciones verification page not recognised: ");
      expect(result.ok === false && result.message).toContain(says);
    });

  test('HTTP 500', async () => {
    expect(await serving('http500', () => ask(newUuid()))).toEqual({
      ok: false,
      retryable: true,
      message: "SAT's Retenciones verification page answered HTTP 500",
    });
  });

  test('no answer within the timeout', async () => {
    const result = await serving('hang', () => ask(newUuid(), RECEPTOR, { timeoutMs: 200 }));
    expect(result).toMatchObject({ ok: false, retryable: true });
    expect(result.ok === false && result.message).toStartWith("SAT's Retenciones verification page unreachable: ");
  });

  test('nothing listening', async () => {
    const result = await consultSatRetencion(
      { uuid: newUuid(), rfcEmisor: EMISOR, rfcReceptor: RECEPTOR },
      { url: 'http://127.0.0.1:9/Home/ConsultaRetencion' },
    );
    expect(result).toMatchObject({ ok: false, retryable: true });
    expect(result.ok === false && result.message).toStartWith("SAT's Retenciones verification page unreachable: ");
  });
});
