import { describe, expect, test } from 'bun:test';
import type { ComercioExteriorInput, MercanciaComercioExteriorInput } from '../../../src/cfdi/complements/comercioexterior20/input.ts';
import type { ComercioExteriorContext } from '../../../src/cfdi/complements/comercioexterior20/model.ts';
import { CTX, concepto, EMISOR_DOMICILIO, run, USA_DOMICILIO, VALID } from './fixtures.ts';

const text = (m: { valorDolares: { toString(): string } }) => m.valorDolares.toString();

describe('prepareComercioExterior: a valid export', () => {
  test('three mercancías, A1 in USD: SKU-A sums its two conceptos, TotalUSD is their sum with two decimals', () => {
    const { model, problems } = run(VALID);
    expect(problems).toEqual([]);
    expect(model.mercancias.map((m) => [m.noIdentificacion, text(m)])).toEqual([
      ['SKU-A', '1729.00'],
      ['SKU-B', '3000.00'],
      ['SKU-C', '2941.50'],
    ]);
    expect(model.totalUSD.toString()).toBe('7670.50');
    // On a CFDI in USD, TipoCambioUSD is the comprobante's own rate.
    expect(model.tipoCambioUSD.toString()).toBe('17.2345');
    expect(model).toMatchObject({ claveDePedimento: 'A1', certificadoOrigen: '0', incoterm: 'FCA', propietarios: [], destinatarios: [] });
    expect(model.emisor).toEqual({
      curp: undefined,
      domicilio: expect.objectContaining({ colonia: '0001', municipio: '039', estado: 'NLE', codigoPostal: '64000' }),
    });
    expect(model.mercancias[1]!.descripcionesEspecificas).toEqual([{ marca: 'ACME', modelo: 'X1', subModelo: undefined, numeroSerie: 'SN-1' }]);
  });

  test('without mercancias they are derived from the conceptos, one per no_identificacion in order of appearance', () => {
    const { model, problems } = run({ ...VALID, mercancias: undefined });
    // Derived mercancías carry no fracción: CCE206 asks for one on goods.
    expect(problems.map((p) => [p.field, p.rule])).toEqual([
      ['comercio_exterior.mercancias[0].fraccion_arancelaria', 'CCE206'],
      ['comercio_exterior.mercancias[1].fraccion_arancelaria', 'CCE206'],
      ['comercio_exterior.mercancias[2].fraccion_arancelaria', 'CCE206'],
    ]);
    expect(model.mercancias.map((m) => m.noIdentificacion)).toEqual(['SKU-A', 'SKU-B', 'SKU-C']);
    expect(model.totalUSD.toString()).toBe('7670.50');
  });

  test('the aduana triplet, two mercancías of one no_identificacion split by fracción, a sample given away', () => {
    const ctx: ComercioExteriorContext = {
      ...CTX,
      moneda: 'MXN',
      tipoCambio: undefined,
      conceptos: [...CTX.conceptos, concepto('MUESTRA', '1', '350', '350')],
    };
    const { model, problems } = run(
      {
        ...VALID,
        tipo_cambio_usd: '17.2345',
        mercancias: [
          {
            no_identificacion: 'SKU-A',
            fraccion_arancelaria: '0901110300',
            cantidad_aduana: '100',
            unidad_aduana: '01',
            valor_unitario_aduana: '0.60',
            valor_dolares: '60.00',
          },
          {
            no_identificacion: 'SKU-A',
            fraccion_arancelaria: '0901110400',
            cantidad_aduana: '40',
            unidad_aduana: '01',
            valor_unitario_aduana: '1.008',
            valor_dolares: '40.32',
          },
          { no_identificacion: 'SKU-B', fraccion_arancelaria: '8403100100', cantidad_aduana: '2', unidad_aduana: '06', valor_unitario_aduana: '87.03' },
          { no_identificacion: 'SKU-C', fraccion_arancelaria: '8405100100', cantidad_aduana: '3', unidad_aduana: '06', valor_unitario_aduana: '56.89' },
          { no_identificacion: 'MUESTRA', fraccion_arancelaria: '9801000100', cantidad_aduana: '1', unidad_aduana: '01', valor_unitario_aduana: '20.31' },
        ],
      },
      ctx,
    );
    expect(problems).toEqual([]);
    // 1729 / 17.2345 = 100.3221… (split 60.00 + 40.32); 3000 / 17.2345 = 174.0694…; 2941.5 / 17.2345 = 170.6751…; 350 / 17.2345 = 20.3081…
    expect(model.mercancias.map(text)).toEqual(['60.00', '40.32', '174.07', '170.68', '20.31']);
    expect(model.totalUSD.toString()).toBe('465.38');
  });

  test('a Traslado of goods of third parties (motivo 05) with their owner and one destinatario', () => {
    const ctx: ComercioExteriorContext = { ...CTX, tipo: 'T' };
    const { model, problems } = run({
      ...VALID,
      motivo_traslado: '05',
      propietario: [{ num_reg_id_trib: '987654321', residencia_fiscal: 'USA' }],
      destinatario: [{ nombre: 'Warehouse Inc', num_reg_id_trib: '111222333', domicilio: [USA_DOMICILIO] }],
    });
    // On an Ingreso neither a motivo nor an owner belongs.
    expect(problems.map((p) => p.rule)).toEqual(['CCE113', 'CCE148']);
    const t = run(
      {
        ...VALID,
        motivo_traslado: '05',
        propietario: [{ num_reg_id_trib: '987654321', residencia_fiscal: 'USA' }],
        destinatario: [{ nombre: 'Warehouse Inc', num_reg_id_trib: '111222333', domicilio: [USA_DOMICILIO] }],
      },
      ctx,
    );
    expect(t.problems).toEqual([]);
    expect(t.model.propietarios).toEqual([{ numRegIdTrib: '987654321', residenciaFiscal: 'USA' }]);
    expect(model.destinatarios[0]!.domicilios[0]!.estado).toBe('TX');
  });
});

type Mutation = (req: ComercioExteriorInput, ctx: ComercioExteriorContext) => void;
const merc = (req: ComercioExteriorInput, i: number): MercanciaComercioExteriorInput => req.mercancias![i]!;
const MX_DOMICILIO = { calle: 'Juárez', colonia: '0001', localidad: '07', municipio: '039', estado: 'NLE', pais: 'MEX', codigo_postal: '64000' };
const CAN_DOMICILIO = { calle: 'Bay St', estado: 'ON', pais: 'CAN', codigo_postal: 'M5J 2N8' };
const asTraslado =
  (motivo: string): Mutation =>
  (req, ctx) => {
    ctx.tipo = 'T';
    req.motivo_traslado = motivo;
  };
const both =
  (...ms: Mutation[]): Mutation =>
  (req, ctx) => {
    for (const m of ms) m(req, ctx);
  };
const tripletOnAll: Mutation = (req) => {
  Object.assign(merc(req, 0), { cantidad_aduana: '140', unidad_aduana: '01', valor_unitario_aduana: '12.35' });
  Object.assign(merc(req, 1), { cantidad_aduana: '2', unidad_aduana: '06', valor_unitario_aduana: '1500' });
  Object.assign(merc(req, 2), { cantidad_aduana: '3', unidad_aduana: '06', valor_unitario_aduana: '980.5' });
};

/** [what is wrong, how, the field reported, SAT's rule]. Each case breaks one rule of a valid request. */
const INVALID: [string, Mutation, string, string][] = [
  ['on an Egreso', (_, ctx) => void (ctx.tipo = 'E'), 'comercio_exterior', 'CCE145'],
  ['exportación 01', (_, ctx) => void (ctx.exportacion = '01'), 'exportacion', 'CCE145'],
  ['a Traslado without motivo', (_, ctx) => void (ctx.tipo = 'T'), 'comercio_exterior.motivo_traslado', 'CCE146'],
  ['a motivo on an Ingreso', (req) => void (req.motivo_traslado = '03'), 'comercio_exterior.motivo_traslado', 'CCE113'],
  ['motivo 05 without propietario', asTraslado('05'), 'comercio_exterior.propietario', 'CCE147'],
  [
    'a propietario on an Ingreso',
    (req) => void (req.propietario = [{ num_reg_id_trib: '987654321', residencia_fiscal: 'USA' }]),
    'comercio_exterior.propietario',
    'CCE148',
  ],
  ['motivo 01 without the invoices it ships', asTraslado('01'), 'cfdi_relacionados', 'CCE157'],
  ['a Mexican receptor on an Ingreso', (_, ctx) => void (ctx.receptor = { rfc: 'ICV060329BY0' }), 'receptor.rfc', 'CCE150'],
  [
    'MXN without tipo_cambio_usd',
    (_, ctx) => {
      ctx.moneda = 'MXN';
      ctx.tipoCambio = undefined;
    },
    'comercio_exterior.tipo_cambio_usd',
    'CCE159',
  ],
  ['tipo_cambio_usd 0', (req) => void (req.tipo_cambio_usd = '0'), 'comercio_exterior.tipo_cambio_usd', 'CCE159'],
  [
    'num_certificado_origen without certificado_origen',
    (req) => void (req.num_certificado_origen = 'CO-123456'),
    'comercio_exterior.num_certificado_origen',
    'CCE160',
  ],
  [
    'an EU exporter number to the USA',
    (req) => void (req.numero_exportador_confiable = 'MX/123/2024'),
    'comercio_exterior.numero_exportador_confiable',
    'CCE161',
  ],
  ['total_usd other than the sum', (req) => void (req.total_usd = '7670.49'), 'comercio_exterior.total_usd', 'CCE162'],
  ['total_usd with three decimals', (req) => void (req.total_usd = '7670.500'), 'comercio_exterior.total_usd', 'CCE163'],
  ['a valor_dolares with a fraction of a cent', (req) => void (merc(req, 1).valor_dolares = '3000.001'), 'comercio_exterior.total_usd', 'CCE163'],
  ['a CURP for a persona moral', (req) => void (req.emisor = { curp: 'BADD110313HCMLNS09' }), 'comercio_exterior.emisor.curp', 'CCE164'],
  ['a persona física without CURP', (_, ctx) => void (ctx.emisor = { ...ctx.emisor, rfc: 'CACX7605101P8' }), 'comercio_exterior.emisor.curp', 'CCE165'],
  ['an issuer without fiscal address', (_, ctx) => void (ctx.emisor = { rfc: 'EKU9003173C9' }), 'comercio_exterior.emisor.domicilio', 'CCE167'],
  ['an issuer abroad', (_, ctx) => void (ctx.emisor = { ...ctx.emisor, domicilio: USA_DOMICILIO }), 'comercio_exterior.emisor.domicilio.pais', 'CCE168'],
  [
    'an issuer in estado XXX',
    (_, ctx) => void (ctx.emisor.domicilio = { ...EMISOR_DOMICILIO, estado: 'XXX' }),
    'comercio_exterior.emisor.domicilio.estado',
    'CCE169',
  ],
  [
    'an issuer in municipio 999',
    (_, ctx) => void (ctx.emisor.domicilio = { ...EMISOR_DOMICILIO, municipio: '999' }),
    'comercio_exterior.emisor.domicilio.municipio',
    'CCE170',
  ],
  [
    'an issuer in localidad 99',
    (_, ctx) => void (ctx.emisor.domicilio = { ...EMISOR_DOMICILIO, localidad: '99' }),
    'comercio_exterior.emisor.domicilio.localidad',
    'CCE171',
  ],
  [
    'an issuer in colonia 9999',
    (_, ctx) => void (ctx.emisor.domicilio = { ...EMISOR_DOMICILIO, colonia: '9999' }),
    'comercio_exterior.emisor.domicilio.colonia',
    'CCE172',
  ],
  [
    "an issuer's colonia by name",
    (_, ctx) => void (ctx.emisor.domicilio = { ...EMISOR_DOMICILIO, colonia: 'Centro' }),
    'comercio_exterior.emisor.domicilio.colonia',
    'CCE172',
  ],
  [
    "an issuer's código postal in another municipio",
    (_, ctx) => void (ctx.emisor.domicilio = { ...EMISOR_DOMICILIO, municipio: '001', localidad: undefined }),
    'comercio_exterior.emisor.domicilio.codigo_postal',
    'CCE173',
  ],
  [
    'a US owner with a malformed tax id',
    both(asTraslado('05'), (req) => void (req.propietario = [{ num_reg_id_trib: 'ABC-123', residencia_fiscal: 'USA' }])),
    'comercio_exterior.propietario[0].num_reg_id_trib',
    'CCE175',
  ],
  [
    'a Mexican owner with no RFC',
    both(asTraslado('05'), (req) => void (req.propietario = [{ num_reg_id_trib: 'NOTANRFC1', residencia_fiscal: 'MEX' }])),
    'comercio_exterior.propietario[0].num_reg_id_trib',
    'CCE174',
  ],
  [
    "the receptor's tax id in the complement",
    (req) => void (req.receptor = { ...req.receptor, num_reg_id_trib: '123456789' }),
    'comercio_exterior.receptor.num_reg_id_trib',
    'CCE176',
  ],
  ['no receptor domicilio', (req) => void (req.receptor = undefined), 'comercio_exterior.receptor.domicilio', 'CCE181'],
  [
    'a receptor in colonia 9999',
    (req) => void (req.receptor = { domicilio: { ...MX_DOMICILIO, colonia: '9999' } }),
    'comercio_exterior.receptor.domicilio.colonia',
    'CCE182',
  ],
  [
    'a receptor in localidad 99',
    (req) => void (req.receptor = { domicilio: { ...MX_DOMICILIO, localidad: '99' } }),
    'comercio_exterior.receptor.domicilio.localidad',
    'CCE183',
  ],
  [
    'a receptor in municipio 999',
    (req) => void (req.receptor = { domicilio: { ...MX_DOMICILIO, municipio: '999' } }),
    'comercio_exterior.receptor.domicilio.municipio',
    'CCE184',
  ],
  [
    'a receptor in US state ZZ',
    (req) => void (req.receptor = { domicilio: { ...USA_DOMICILIO, estado: 'ZZ' } }),
    'comercio_exterior.receptor.domicilio.estado',
    'CCE185',
  ],
  [
    'a US zip code of letters',
    (req) => void (req.receptor = { domicilio: { ...USA_DOMICILIO, codigo_postal: 'ABCDE' } }),
    'comercio_exterior.receptor.domicilio.codigo_postal',
    'CCE186',
  ],
  [
    "a receptor's código postal in another municipio",
    (req) => void (req.receptor = { domicilio: { ...MX_DOMICILIO, municipio: '001', localidad: undefined } }),
    'comercio_exterior.receptor.domicilio.codigo_postal',
    'CCE187',
  ],
  [
    'two destinatarios on a Traslado',
    both(asTraslado('02'), (req) => void (req.destinatario = [{ domicilio: [USA_DOMICILIO] }, { domicilio: [CAN_DOMICILIO] }])),
    'comercio_exterior.destinatario',
    'CCE188',
  ],
  [
    'a Mexican destinatario with no RFC',
    (req) => void (req.destinatario = [{ num_reg_id_trib: 'NOTANRFC1', domicilio: [MX_DOMICILIO] }]),
    'comercio_exterior.destinatario[0].num_reg_id_trib',
    'CCE189',
  ],
  [
    'a Canadian destinatario with a malformed tax id',
    (req) => void (req.destinatario = [{ num_reg_id_trib: 'CA-12345', domicilio: [CAN_DOMICILIO] }]),
    'comercio_exterior.destinatario[0].num_reg_id_trib',
    'CCE190',
  ],
  [
    'a destinatario in colonia 9999',
    (req) => void (req.destinatario = [{ domicilio: [{ ...MX_DOMICILIO, colonia: '9999' }] }]),
    'comercio_exterior.destinatario[0].domicilio[0].colonia',
    'CCE191',
  ],
  [
    'a destinatario in localidad 99',
    (req) => void (req.destinatario = [{ domicilio: [USA_DOMICILIO, { ...MX_DOMICILIO, localidad: '99' }] }]),
    'comercio_exterior.destinatario[0].domicilio[1].localidad',
    'CCE192',
  ],
  [
    'a destinatario in municipio 999',
    (req) => void (req.destinatario = [{ domicilio: [{ ...MX_DOMICILIO, municipio: '999' }] }]),
    'comercio_exterior.destinatario[0].domicilio[0].municipio',
    'CCE193',
  ],
  [
    'a destinatario in Canadian province ZZ',
    (req) => void (req.destinatario = [{ domicilio: [{ ...CAN_DOMICILIO, estado: 'ZZ' }] }]),
    'comercio_exterior.destinatario[0].domicilio[0].estado',
    'CCE194',
  ],
  [
    'a Canadian postal code of digits',
    (req) => void (req.destinatario = [{ domicilio: [{ ...CAN_DOMICILIO, codigo_postal: '12345' }] }]),
    'comercio_exterior.destinatario[0].domicilio[0].codigo_postal',
    'CCE195',
  ],
  [
    'a destinatario at a código postal SAT does not list',
    (req) => void (req.destinatario = [{ domicilio: [{ ...MX_DOMICILIO, colonia: 'Centro', codigo_postal: '99999' }] }]),
    'comercio_exterior.destinatario[0].domicilio[0].codigo_postal',
    'CCE196',
  ],
  ['a concepto without no_identificacion', (_, ctx) => void ctx.conceptos.push(concepto(undefined, '1', '10')), 'conceptos[4].no_identificacion', 'CCE197'],
  [
    'a mercancía no concepto bills',
    (req) => void req.mercancias!.push({ no_identificacion: 'SKU-Z', fraccion_arancelaria: '8403100100' }),
    'comercio_exterior.mercancias[3].no_identificacion',
    'CCE198',
  ],
  ['a concepto without mercancía', (req) => void req.mercancias!.pop(), 'conceptos[3].no_identificacion', 'CCE199'],
  [
    'a repeated no_identificacion and fracción',
    (req) => {
      merc(req, 1).valor_dolares = '1500.00';
      req.mercancias!.push({ no_identificacion: 'SKU-B', fraccion_arancelaria: '8403100100', valor_dolares: '1500.00' });
    },
    'comercio_exterior.mercancias[3].fraccion_arancelaria',
    'CCE200',
  ],
  [
    'a split whose dollars do not add up',
    (req) => {
      merc(req, 1).valor_dolares = '1500.00';
      req.mercancias!.push({ no_identificacion: 'SKU-B', fraccion_arancelaria: '8405100200', valor_dolares: '1499.00' });
    },
    'comercio_exterior.mercancias[1].valor_dolares',
    'CCE205',
  ],
  [
    'a split without its dollars',
    (req) => void req.mercancias!.push({ no_identificacion: 'SKU-B', fraccion_arancelaria: '8405100200', valor_dolares: '1000.00' }),
    'comercio_exterior.mercancias[1].valor_dolares',
    'CCE205',
  ],
  ['goods without fracción', (req) => void (merc(req, 2).fraccion_arancelaria = undefined), 'comercio_exterior.mercancias[2].fraccion_arancelaria', 'CCE206'],
  [
    'a service with a fracción',
    (req) => Object.assign(merc(req, 2), { cantidad_aduana: '1', unidad_aduana: '99', valor_unitario_aduana: '2941.5' }),
    'comercio_exterior.mercancias[2].fraccion_arancelaria',
    'CCE207',
  ],
  [
    'a 1.1 fracción (8 digits) the 2.0 catalog dropped',
    (req) => void (merc(req, 1).fraccion_arancelaria = '84031001'),
    'comercio_exterior.mercancias[1].fraccion_arancelaria',
    'CCE208',
  ],
  [
    "a customs unit other than the fracción's",
    both(tripletOnAll, (req) => void (merc(req, 0).unidad_aduana = '06')),
    'comercio_exterior.mercancias[0].unidad_aduana',
    'CCE209',
  ],
  [
    'half the aduana triplet',
    both(tripletOnAll, (req) => void (merc(req, 1).valor_unitario_aduana = undefined)),
    'comercio_exterior.mercancias[1].valor_unitario_aduana',
    'CCE213',
  ],
  [
    'the aduana triplet on one mercancía only',
    (req) => Object.assign(merc(req, 1), { cantidad_aduana: '2', unidad_aduana: '06', valor_unitario_aduana: '1500' }),
    'comercio_exterior.mercancias[0].cantidad_aduana',
    'CCE214',
  ],
  [
    'valor_unitario_aduana 0 for goods',
    both(tripletOnAll, (req) => void (merc(req, 2).valor_unitario_aduana = '0')),
    'comercio_exterior.mercancias[2].valor_unitario_aduana',
    'CCE215',
  ],
  [
    'dollars other than cantidad_aduana × valor_unitario_aduana',
    both(tripletOnAll, (req) => Object.assign(merc(req, 1), { cantidad_aduana: '2.000', valor_unitario_aduana: '1400' })),
    'comercio_exterior.mercancias[1].valor_dolares',
    'CCE216',
  ],
  ["dollars other than the concepto's", (req) => void (merc(req, 1).valor_dolares = '2999.90'), 'comercio_exterior.mercancias[1].valor_dolares', 'CCE217'],
  ['0 dollars for goods', (req) => void (merc(req, 1).valor_dolares = '0'), 'comercio_exterior.mercancias[1].valor_dolares', 'CCE217'],
  [
    'samples without their discount',
    (req, ctx) => {
      ctx.conceptos.push(concepto('MUESTRA', '1', '350', '100'));
      req.mercancias!.push({ no_identificacion: 'MUESTRA', fraccion_arancelaria: '9801000100' });
    },
    'comercio_exterior.mercancias[3].fraccion_arancelaria',
    'CCE212',
  ],
];

describe('prepareComercioExterior: each broken rule is reported at its field with its SAT code', () => {
  test(`at least 40 distinct cases (${INVALID.length})`, () => {
    expect(INVALID.length).toBeGreaterThanOrEqual(40);
    expect(new Set(INVALID.map(([name]) => name)).size).toBe(INVALID.length);
  });
  for (const [name, mutate, field, rule] of INVALID)
    test(`${name}: ${field} ${rule}`, () => {
      const req: ComercioExteriorInput = structuredClone(VALID);
      const ctx: ComercioExteriorContext = {
        ...CTX,
        emisor: { ...CTX.emisor, domicilio: { ...EMISOR_DOMICILIO } },
        receptor: { ...CTX.receptor },
        conceptos: [...CTX.conceptos],
        relacionados: [],
      };
      mutate(req, ctx);
      const { problems } = run(req, ctx);
      expect(problems.map((p) => [p.field, p.rule])).toContainEqual([field, rule]);
      // Every report names a rule: only the XSD's own checks have none, and no case here breaks one.
      expect(problems.filter((p) => p.rule === undefined)).toEqual([]);
    });
});

describe('prepareComercioExterior: the amounts of a 20-mercancía export, recomputed without the engine', () => {
  // In EUR: every ValorDolares goes through both exchange rates. Integers in cents, rationals as bigint pairs.
  const T = 20_123_456n; // TipoCambio 20.123456 (pesos per euro), scale 6
  const U = 174_501n; // TipoCambioUSD 17.4501 (pesos per dollar), scale 4
  const skus = Array.from({ length: 20 }, (_, k) => `PRD-${String(k + 1).padStart(3, '0')}`);
  // 25 conceptos: a deterministic spread of quantities and prices; five SKUs billed twice.
  const lines = Array.from({ length: 25 }, (_, k) => ({
    sku: skus[k % 20]!,
    cantidad: BigInt(1 + ((k * 37) % 250)),
    centsPerUnit: BigInt(99 + ((k * 7919) % 987_654)),
  }));
  const cents = (v: bigint) => `${v / 100n}.${String(v % 100n).padStart(2, '0')}`;
  const ctx: ComercioExteriorContext = {
    ...CTX,
    moneda: 'EUR',
    tipoCambio: '20.123456',
    conceptos: lines.map((l) => concepto(l.sku, String(l.cantidad), cents(l.centsPerUnit))),
  };
  const req: ComercioExteriorInput = {
    ...VALID,
    tipo_cambio_usd: '17.4501',
    mercancias: skus.map((sku, k) => ({ no_identificacion: sku, fraccion_arancelaria: k % 2 ? '8403100100' : '0901110300' })),
  };

  test('ValorDolares = Σ importe × TipoCambio ÷ TipoCambioUSD to the cent, inside SAT’s window; TotalUSD = Σ ValorDolares', () => {
    const { model, problems } = run(req, ctx);
    expect(problems).toEqual([]);
    expect(model.mercancias).toHaveLength(20);
    let total = 0n;
    skus.forEach((sku, k) => {
      const I = lines.filter((l) => l.sku === sku).reduce((s, l) => s + l.cantidad * l.centsPerUnit, 0n);
      // I·T/(100·U) cents, rounded half up.
      const valor = (2n * I * T + 100n * U) / (200n * U);
      expect(model.mercancias[k]!.valorDolares.toString()).toBe(cents(valor));
      // SAT's window: (I ∓ ½ cent)(T ∓ ½ unit) ÷ (U ± ½ unit), in cents.
      expect(valor * 200n * (2n * U + 1n) >= (2n * I - 1n) * (2n * T - 1n)).toBe(true);
      expect(valor * 200n * (2n * U - 1n) <= (2n * I + 1n) * (2n * T + 1n)).toBe(true);
      total += valor;
    });
    expect(model.totalUSD.toString()).toBe(cents(total));
    expect(model.totalUSD.toString()).toMatch(/^\d+\.\d{2}$/);
    // What the request would send back is accepted as is.
    expect(
      run({ ...req, total_usd: cents(total), mercancias: req.mercancias!.map((m, k) => ({ ...m, valor_dolares: text(model.mercancias[k]!) })) }, ctx).problems,
    ).toEqual([]);
  });
});
