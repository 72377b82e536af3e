import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { comprobanteNode } from '../../src/cfdi/build.ts';
import { cadenaOriginal } from '../../src/cfdi/cadena.ts';
import type { Complement } from '../../src/cfdi/complements/complement.ts';
import { COMPLEMENTS, CONCEPTO_COMPLEMENTS, conceptoComplementSummaries } from '../../src/cfdi/complements/index.ts';
import type { ComprobanteInput } from '../../src/cfdi/input.ts';
import { prepareInvoice } from '../../src/cfdi/prepare.ts';
import { child, childrenNamed, el, parseXml, serializeXml } from '../../src/cfdi/xml.ts';
import { cadenaFromSatXslt, SAT_DIR } from '../sat/verify.ts';

/** The complement registry (src/cfdi/complements/index.ts): what build, cadena and prepare take from each entry. */
const XSLT_DIR = join(SAT_DIR, 'xslt', 'complementos');
const STYLESHEETS = readdirSync(XSLT_DIR).map((f) => readFileSync(join(XSLT_DIR, f), 'utf8'));

describe('the registry', () => {
  test("each complement's element, prefix and namespace are those of SAT's stylesheet for it", () => {
    expect(COMPLEMENTS.map((c) => c.element)).toEqual([
      'pago20:Pagos',
      'nomina12:Nomina',
      'cartaporte31:CartaPorte',
      'cce20:ComercioExterior',
      'implocal:ImpuestosLocales',
    ]);
    for (const c of [...COMPLEMENTS, ...CONCEPTO_COMPLEMENTS]) {
      expect(c.element.startsWith(`${c.prefix}:`)).toBe(true);
      const sheet = STYLESHEETS.find((s) => s.includes(`match="${c.element}"`));
      expect([c.element, sheet?.includes(`xmlns:${c.prefix}="${c.namespace}"`)]).toEqual([c.element, true]);
    }
    expect(new Set(COMPLEMENTS.map((c) => c.input)).size).toBe(COMPLEMENTS.length);
    expect(COMPLEMENTS.filter((c) => c.kind).map((c) => c.kind!.tipo)).toEqual(['P', 'N']);
  });
});

describe('a concepto complement (cfdi:ComplementoConcepto)', () => {
  test('the cadena applies the complement templates to ComplementoConcepto, as cadenaoriginal_4_0.xslt does', async () => {
    // SAT's Pago sample with its pago20:Pagos moved from cfdi:Complemento into its concepto's ComplementoConcepto:
    // not a valid CFDI, but the stylesheet applies the same templates there.
    const sample = readFileSync(join(SAT_DIR, 'samples', 'cfdi40-pago20-sellado-sin-timbre-EKU.xml'), 'utf8');
    const pagos = sample.match(/<pago20:Pagos\b[\s\S]*<\/pago20:Pagos>/)![0];
    const moved = sample
      .replace(pagos, '')
      .replace(/(<cfdi:Concepto\b[^>]*?)\/>/, `$1><cfdi:ComplementoConcepto>${pagos}</cfdi:ComplementoConcepto></cfdi:Concepto>`);
    expect(moved).not.toBe(sample);
    const ours = cadenaOriginal(parseXml(moved));
    expect(ours).toBe(await cadenaFromSatXslt(moved));
    expect(ours).toContain('|2.0|');
  });

  test("prepared from its member of each concepto that sends it; its node in that concepto's ComplementoConcepto; its namespace on the root", () => {
    // A stand-in entry, in the registry only for this test (beside Hidrocarburos y Petrolíferos, the registered one).
    const prueba: Complement = {
      input: 'prueba',
      model: 'prueba',
      element: 'prueba:Dato',
      prefix: 'prueba',
      namespace: 'http://www.sat.gob.mx/prueba',
      schemaLocation: 'http://www.sat.gob.mx/prueba.xsd',
      prepare: (input, facts, _context, fail) => {
        if (facts.conceptos.length !== 1) fail(facts.field, 'sees only its concepto');
        return { Valor: (input as { valor: string }).valor, Importe: facts.conceptos[0]!.importe.toString(), Campo: facts.field };
      },
      node: (m) => el('prueba:Dato', m as Record<string, string>),
      cadena: [],
      summary: (m) => ({ valor: (m as { Valor: string }).Valor }),
    };
    const concepto = { clave_prod_serv: '84111506', cantidad: '2', clave_unidad: 'E48', descripcion: 'x', valor_unitario: '10', objeto_imp: '01' };
    const request = {
      tipo: 'I',
      fecha: '2026-11-20T10:00:00',
      forma_pago: '03',
      receptor: RECEPTOR,
      conceptos: [concepto, { ...concepto, valor_unitario: '5', prueba: { valor: 'uno' } }],
    } as unknown as ComprobanteInput;
    const registry = CONCEPTO_COMPLEMENTS as Complement[];
    registry.push(prueba);
    try {
      const { model, errors } = prepareInvoice(request, CTX);
      expect(errors).toEqual([]);
      const root = parseXml(serializeXml(comprobanteNode(model!, { noCertificado: '30001000000500003416', certificadoBase64: 'AA==' })));
      expect(root.attrs['xmlns:prueba']).toBe('http://www.sat.gob.mx/prueba');
      expect(root.attrs['xsi:schemaLocation']).toEndWith(' http://www.sat.gob.mx/prueba http://www.sat.gob.mx/prueba.xsd');
      const [first, second] = childrenNamed(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto');
      expect(child(first!, 'cfdi:ComplementoConcepto')).toBeUndefined();
      const complemento = child(second!, 'cfdi:ComplementoConcepto')!;
      expect(complemento.children.map((n) => [n.name, n.attrs])).toEqual([['prueba:Dato', { Valor: 'uno', Importe: '10.00', Campo: 'conceptos[1].prueba' }]]);
      expect(child(root, 'cfdi:Complemento')).toBeUndefined();
      // GET's view, stored with each concepto's summary under its request member.
      expect(model!.conceptos.map((c) => conceptoComplementSummaries(c) as object)).toEqual([{}, { prueba: { valor: 'uno' } }]);
    } finally {
      registry.pop();
    }
    // Without the entry, the member is not looked at.
    const { model } = prepareInvoice(request, CTX);
    expect(serializeXml(comprobanteNode(model!, { noCertificado: '30001000000500003416', certificadoBase64: 'AA==' }))).not.toContain('prueba');
  });
});

describe('a complement required in some cases (absent)', () => {
  test('a concepto complement hears of each concepto that does not send it, under that concepto', () => {
    const requerido: Complement = {
      input: 'requerido',
      model: 'requerido',
      element: 'requerido:Dato',
      prefix: 'requerido',
      namespace: 'http://www.sat.gob.mx/requerido',
      schemaLocation: 'http://www.sat.gob.mx/requerido.xsd',
      prepare: () => ({}),
      absent: (facts, fail) => {
        if (facts.conceptos[0]!.claveProdServ === '84111505') fail(facts.field, 'is required on this key');
      },
      node: () => el('requerido:Dato', {}),
      cadena: [],
    };
    const concepto = { clave_prod_serv: '84111506', cantidad: '1', clave_unidad: 'E48', descripcion: 'x', valor_unitario: '10', objeto_imp: '01' };
    const request = {
      tipo: 'I',
      fecha: '2026-11-20T10:00:00',
      forma_pago: '03',
      receptor: RECEPTOR,
      conceptos: [concepto, { ...concepto, clave_prod_serv: '84111505' }, { ...concepto, clave_prod_serv: '84111505', requerido: {} }],
    } as unknown as ComprobanteInput;
    const registry = CONCEPTO_COMPLEMENTS as Complement[];
    registry.push(requerido);
    try {
      expect(prepareInvoice(request, CTX).errors).toEqual([{ field: 'conceptos[1].requerido', issue: 'is required on this key' }]);
    } finally {
      registry.pop();
    }
    expect(prepareInvoice(request, CTX).errors).toEqual([]);
  });
});

const RECEPTOR = { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' };
const CTX = {
  emisor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimenFiscal: '601', codigoPostal: '42501' },
  receptor: RECEPTOR,
  now: new Date('2026-11-20T18:00:00Z'),
};
