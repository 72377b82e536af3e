import { describe, expect, test } from 'bun:test';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import type { CartaPorteContext, CartaPorteModel } from '../../../src/cfdi/complements/cartaporte31/model.ts';
import { prepareCartaPorte } from '../../../src/cfdi/complements/cartaporte31/rules.ts';
import { cartaPorteNode } from '../../../src/cfdi/complements/cartaporte31/xml.ts';
import { Dec } from '../../../src/cfdi/decimal.ts';
import { child, el, parseXml, serializeXml } from '../../../src/cfdi/xml.ts';
import { CartaPorteRequestSchema, type CartaPorteRequest } from '../../../src/invoices/cfdis/complements/cartaporte31.ts';
import type { ErrorDetail } from '../../../src/lib/service-error.ts';
import { cadenaFromSatXslt, validateAgainstSatXsd } from '../../sat/verify.ts';
import { merged } from '../corpus.ts';
import { CARTAS_PORTE } from './corpus.ts';

const CTX: CartaPorteContext = {
  comprobante: { tipo: 'I', moneda: 'MXN', receptorRfc: 'ICV060329BY0', usoCfdi: 'G03', receptorField: 'receptor', conceptos: ['78101800'] },
  fecha: '2026-11-20T07:00:00',
  emisorRfc: 'EKU9003173C9',
  newIdCcp: () => 'CCCABCDE-1234-4321-8ABC-0123456789AB',
};
const request = (name: string) => CARTAS_PORTE.find(([n]) => n.startsWith(name))![1].carta_porte as Record<string, unknown>;
const parse = (raw: unknown): CartaPorteRequest => CartaPorteRequestSchema.parse(raw);

function run(req: CartaPorteRequest, ctx = CTX): { model: CartaPorteModel; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  const model = prepareCartaPorte(req, ctx, (field, issue, rule) => problems.push(rule ? { field, issue, rule } : { field, issue }));
  return { model, problems };
}
function valid(raw: Record<string, unknown>, ctx = CTX): CartaPorteModel {
  const { model, problems } = run(parse(raw), ctx);
  expect(problems).toEqual([]);
  return model;
}

/** A CFDI 4.0 tipo T around the node (no seal: the cadena and the schema do not need one). */
function cfdiDocument(m: CartaPorteModel): string {
  return serializeXml(
    el(
      'cfdi:Comprobante',
      {
        'xmlns:cfdi': 'http://www.sat.gob.mx/cfd/4',
        'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
        'xmlns:cartaporte31': 'http://www.sat.gob.mx/CartaPorte31',
        'xsi:schemaLocation':
          'http://www.sat.gob.mx/cfd/4 http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd http://www.sat.gob.mx/CartaPorte31 http://www.sat.gob.mx/sitio_internet/cfd/CartaPorte/CartaPorte31.xsd',
        Version: '4.0',
        Fecha: CTX.fecha,
        Sello: '',
        NoCertificado: '30001000000500003416',
        Certificado: '',
        SubTotal: '0',
        Moneda: 'XXX',
        Total: '0',
        TipoDeComprobante: 'T',
        Exportacion: '01',
        LugarExpedicion: '42501',
      },
      [
        el('cfdi:Emisor', { Rfc: 'EKU9003173C9', Nombre: 'ESCUELA KEMPER URGATE', RegimenFiscal: '601' }),
        el('cfdi:Receptor', {
          Rfc: 'EKU9003173C9',
          Nombre: 'ESCUELA KEMPER URGATE',
          DomicilioFiscalReceptor: '42501',
          RegimenFiscalReceptor: '601',
          UsoCFDI: 'S01',
        }),
        el('cfdi:Conceptos', {}, [
          el('cfdi:Concepto', {
            ClaveProdServ: '24112700',
            Cantidad: '1',
            ClaveUnidad: 'H87',
            Descripcion: 'Tarimas',
            ValorUnitario: '0',
            Importe: '0',
            ObjetoImp: '01',
          }),
        ]),
        el('cfdi:Complemento', {}, [cartaPorteNode(m)]),
      ],
    ),
  );
}

async function expectSatValid(m: CartaPorteModel) {
  const xml = cfdiDocument(m);
  expect(await validateAgainstSatXsd(xml)).toEqual({ valid: true, errors: [] });
  expect(cadenaOriginal(parseXml(xml))).toBe(await cadenaFromSatXslt(xml));
}

describe('prepareCartaPorte: what SAT computes is computed', () => {
  test('IdCCP from the caller’s source, or as sent (upper-cased)', () => {
    expect(valid(request('Carta Porte T, autotransporte: own goods')).idCcp).toBe('CCCABCDE-1234-4321-8ABC-0123456789AB');
    expect(valid({ ...request('Carta Porte T, autotransporte: own goods'), id_ccp: 'CCCfedcb-a987-4654-b321-0fedcba98765' }).idCcp).toBe(
      'CCCFEDCB-A987-4654-B321-0FEDCBA98765',
    );
  });

  test('TotalDistRec is the sum of the destinations’ distances, exact', () => {
    const m = valid(request('Carta Porte T, autotransporte: five destinations'));
    expect(m.totalDistRec?.toString()).toBe('1588.25');
    expect(valid(request('Carta Porte T, autotransporte: two destinations')).totalDistRec?.toString()).toBe('561.75');
    // Without distances (air, rail and sea may leave them out) there is no TotalDistRec.
    const sinDistancias = merged(request('Carta Porte T, aéreo'), {});
    (sinDistancias.ubicaciones as Record<string, unknown>[]).forEach((u) => delete u.distancia_recorrida);
    expect(valid(sinDistancias).totalDistRec).toBeUndefined();
  });

  test('PesoBrutoTotal, NumTotalMercancias, PesoNetoTotal and PesoTara', () => {
    const m = valid(request('Carta Porte T, autotransporte: hazardous and ordinary'));
    expect([m.mercancias.pesoBrutoTotal.toString(), m.mercancias.numTotalMercancias, m.mercancias.unidadPeso]).toEqual(['12112.500', 3, 'KGM']);
    expect(m.mercancias.pesoNetoTotal).toBeUndefined();
    const mar = valid(request('Carta Porte T, marítimo: containerised'));
    expect(mar.mercancias.pesoNetoTotal?.toString()).toBe('800');
    expect(mar.mercancias.items[0]!.detalleMercancia?.pesoTara.toString()).toBe('20');
  });

  test('by sea the totals come from DetalleMercancia (CP150, CP151); by rail PesoNetoTotal is the cars’ tonnes (CP152, CP191)', () => {
    const mar = valid(request('Carta Porte T, marítimo: containerised'));
    expect([mar.mercancias.pesoBrutoTotal.toString(), mar.mercancias.pesoNetoTotal?.toString()]).toEqual(['820', '800']); // PesoEnKg is 800.000
    const rail = valid(request('Carta Porte I, ferroviario: intermodal'));
    // The second car sends no toneladas_netas_carro: 21500 kg in its container are 21.5 t.
    expect(rail.mercancias.transporteFerroviario!.carros.map((k) => k.toneladasNetasCarro.toString())).toEqual(['28.5', '21.5']);
    expect(rail.mercancias.pesoNetoTotal?.toString()).toBe('50.0');
    expect(valid(request('Carta Porte T, ferroviario')).mercancias.pesoNetoTotal?.toString()).toBe('60');
  });

  test('IDUbicacion defaults: OR/DE and the position among origins or destinations', () => {
    expect(valid(request('Carta Porte T, autotransporte: two destinations')).ubicaciones.map((u) => u.idUbicacion)).toEqual([
      'OR000001',
      'DE000001',
      'DE000002',
    ]);
    expect(valid(request('Carta Porte T, autotransporte: five destinations')).ubicaciones.map((u) => u.idUbicacion)).toEqual([
      'OR100000',
      'DE100001',
      'DE100002',
      'DE100003',
      'DE100004',
      'DE100005',
    ]);
  });

  test('a station’s name comes from c_Estaciones unless sent', () => {
    const rail = valid(request('Carta Porte T, ferroviario'));
    expect(rail.ubicaciones.map((u) => u.nombreEstacion)).toEqual(['QUERETARO', 'SILAO', 'SANTO NINO', 'TERRERO', 'EJIDO MONTERREY', 'MONTERREY']);
    const bulk = valid(request('Carta Porte I, marítimo: bulk')); // the second one sent, as the catalog has it
    expect(bulk.ubicaciones.map((u) => u.nombreEstacion)).toEqual(['Lázaro Cárdenas', 'Manzanillo', 'Mazatlán']);
  });

  test('booleans become Sí/No; false flags that SAT writes only as Sí are left out', () => {
    const m = valid(request('Carta Porte T, autotransporte: a leased truck'));
    expect([m.transpInternac, m.mercancias.logisticaInversaRecoleccionDevolucion, m.registroIstmo]).toEqual(['No', 'Sí', undefined]);
    expect(m.mercancias.items[0]!.materialPeligroso).toBe('No');
    const istmo = valid(request('Carta Porte T, autotransporte: Istmo'));
    expect([istmo.registroIstmo, istmo.ubicacionPoloOrigen, istmo.ubicacionPoloDestino]).toEqual(['Sí', '01', '03']);
    expect(istmo.mercancias.items[0]!.materialPeligroso).toBeUndefined(); // 43211503 is not hazardous (0): nothing to state
  });

  test('totals sent that disagree are reported, with the value computed', () => {
    const { problems } = run(
      parse({ ...request('Carta Porte T, autotransporte: five destinations'), total_dist_rec: '1588.2', peso_bruto_total: '1', num_total_mercancias: 2 }),
    );
    expect(problems.map((p) => [p.field, p.rule])).toEqual([
      ['carta_porte.total_dist_rec', 'CP126'],
      ['carta_porte.num_total_mercancias', 'CP154'],
      ['carta_porte.peso_bruto_total', 'CP149'],
    ]);
    expect(problems[0]!.issue).toContain('1588.25');
    expect(problems[2]!.issue).toContain('800.000');
  });
});

describe('cartaPorteNode: XSD order, SAT cadena', () => {
  test('attributes of the CartaPorte and Mercancias elements in XSD order', () => {
    const node = cartaPorteNode(valid(request('Carta Porte T, autotransporte: export')));
    expect(Object.keys(node.attrs)).toEqual([
      'Version',
      'IdCCP',
      'TranspInternac',
      'EntradaSalidaMerc',
      'PaisOrigenDestino',
      'ViaEntradaSalida',
      'TotalDistRec',
    ]);
    expect(node.children.map((c) => c.name)).toEqual([
      'cartaporte31:RegimenesAduaneros',
      'cartaporte31:Ubicaciones',
      'cartaporte31:Mercancias',
      'cartaporte31:FiguraTransporte',
    ]);
    const mercancias = child(node, 'cartaporte31:Mercancias')!;
    expect(Object.keys(mercancias.attrs)).toEqual(['PesoBrutoTotal', 'UnidadPeso', 'NumTotalMercancias']);
    expect(mercancias.children.map((c) => c.name)).toEqual(['cartaporte31:Mercancia', 'cartaporte31:Autotransporte']);
  });

  for (const [name, body] of CARTAS_PORTE.slice(0, 3)) {
    test(`${name}: SAT XSD and cadena`, async () => expectSatValid(valid(body.carta_porte as Record<string, unknown>)));
  }

  test('every attribute SAT defines, at once: the cadena steps follow CartaPorte31.xslt', async () => {
    // A model no rule would accept (every transport, every optional attribute): only order and presence are under test.
    const d = (v: string) => Dec.parse(v);
    const domicilio = {
      calle: 'Calle',
      numeroExterior: '1',
      numeroInterior: '2',
      colonia: '0001',
      localidad: '01',
      referencia: 'Frente al parque',
      municipio: '014',
      estado: 'QUE',
      pais: 'MEX',
      codigoPostal: '76000',
    };
    const m: CartaPorteModel = {
      idCcp: 'CCCABCDE-1234-4321-8ABC-0123456789AB',
      transpInternac: 'Sí',
      entradaSalidaMerc: 'Entrada',
      paisOrigenDestino: 'USA',
      viaEntradaSalida: '02',
      totalDistRec: d('12.5'),
      registroIstmo: 'Sí',
      ubicacionPoloOrigen: '01',
      ubicacionPoloDestino: '02',
      regimenesAduaneros: ['IMD', 'ITR'],
      ubicaciones: [
        {
          tipoUbicacion: 'Origen',
          idUbicacion: 'OR000001',
          rfcRemitenteDestinatario: 'XEXX010101000',
          nombreRemitenteDestinatario: 'ACME',
          numRegIdTrib: '123456789',
          residenciaFiscal: 'USA',
          numEstacion: 'PM046',
          nombreEstacion: 'Manzanillo',
          navegacionTrafico: 'Altura',
          fechaHoraSalidaLlegada: '2026-11-20T08:00:00',
          tipoEstacion: '01',
          domicilio,
        },
        {
          tipoUbicacion: 'Destino',
          idUbicacion: 'DE000001',
          rfcRemitenteDestinatario: 'EKU9003173C9',
          fechaHoraSalidaLlegada: '2026-11-21T08:00:00',
          tipoEstacion: '03',
          distanciaRecorrida: d('12.5'),
          domicilio,
        },
      ],
      mercancias: {
        pesoBrutoTotal: d('10.5'),
        unidadPeso: 'KGM',
        pesoNetoTotal: d('9'),
        numTotalMercancias: 1,
        cargoPorTasacion: d('5.00'),
        logisticaInversaRecoleccionDevolucion: 'Sí',
        items: [
          {
            bienesTransp: '15101505',
            claveStcc: '123456',
            descripcion: 'Diésel',
            cantidad: d('1'),
            claveUnidad: 'LTR',
            unidad: 'Litro',
            dimensiones: '30/40/30cm',
            materialPeligroso: 'Sí',
            cveMaterialPeligroso: '1202',
            embalaje: '1A1',
            descripEmbalaje: 'Tambor',
            sectorCofepris: '02',
            nombreIngredienteActivo: 'Ingrediente',
            nomQuimico: 'Químico',
            denominacionGenericaProd: 'Genérico',
            denominacionDistintivaProd: 'Marca',
            fabricante: 'Fabricante',
            fechaCaducidad: '2028-01-01',
            loteMedicamento: 'L1',
            formaFarmaceutica: '01',
            condicionesEspTransp: '01',
            registroSanitarioFolioAutorizacion: 'RS1',
            permisoImportacion: 'P1',
            folioImpoVucem: 'V1',
            numCas: '64-17-5',
            razonSocialEmpImp: 'Importadora',
            numRegSanPlagCofepris: 'RSP1',
            datosFabricante: 'MEX Fabricante',
            datosFormulador: 'MEX Formulador',
            datosMaquilador: 'MEX Maquilador',
            usoAutorizado: 'Agrícola',
            pesoEnKg: d('10.5'),
            valorMercancia: d('100.00'),
            moneda: 'MXN',
            fraccionArancelaria: '4415100100',
            uuidComercioExt: '5FB2822E-396D-4725-8521-CDC4BDD20CCF',
            tipoMateria: '05',
            descripcionMateria: 'Otra materia',
            documentacionAduanera: [
              { tipoDocumento: '01', numPedimento: '26  24  3420  6000123', rfcImpo: 'EKU9003173C9' },
              { tipoDocumento: '02', identDocAduanero: 'AIT-1' },
            ],
            guiasIdentificacion: [{ numeroGuiaIdentificacion: 'GUIA-000001', descripGuiaIdentificacion: 'Caja', pesoGuiaIdentificacion: d('1.5') }],
            cantidadTransporta: [{ cantidad: d('1'), idOrigen: 'OR000001', idDestino: 'DE000001', cvesTransporte: '02' }],
            detalleMercancia: { unidadPesoMerc: 'KGM', pesoBruto: d('10.5'), pesoNeto: d('9'), pesoTara: d('1.5'), numPiezas: 3 },
          },
        ],
        autotransporte: {
          permSct: 'TPAF01',
          numPermisoSct: 'P-1',
          identificacionVehicular: { configVehicular: 'T3S2', pesoBrutoVehicular: d('40.00'), placaVm: 'ABC123', anioModeloVm: 2020 },
          seguros: {
            aseguraRespCivil: 'ASEG',
            polizaRespCivil: 'POL1',
            aseguraMedAmbiente: 'ASEG2',
            polizaMedAmbiente: 'POL2',
            aseguraCarga: 'ASEG3',
            polizaCarga: 'POL3',
            primaSeguro: d('10.00'),
          },
          remolques: [{ subTipoRem: 'CTR004', placa: 'REM001' }],
        },
        transporteMaritimo: {
          permSct: 'TPTM01',
          numPermisoSct: 'PM1',
          nombreAseg: 'ASEG',
          numPolizaSeguro: 'POL',
          tipoEmbarcacion: 'B09',
          matricula: 'MAT12345',
          numeroOmi: 'IMO1234567',
          anioEmbarcacion: 2010,
          nombreEmbarc: 'Ferri',
          nacionalidadEmbarc: 'MEX',
          unidadesDeArqBruto: d('100.5'),
          tipoCarga: 'CGC',
          eslora: d('100.00'),
          manga: d('20.00'),
          calado: d('5.00'),
          puntal: d('7.00'),
          lineaNaviera: 'Línea',
          nombreAgenteNaviero: 'Agente',
          numAutorizacionNaviero: 'ANG031/2024',
          numViaje: 'V1',
          numConocEmbarc: 'BL1',
          permisoTempNavegacion: 'PTN1',
          contenedores: [
            {
              tipoContenedor: 'CM011',
              matriculaContenedor: 'MSCU1234565',
              numPrecinto: 'PREC1',
              idCcpRelacionado: 'CCCABCDE-1234-4321-8ABC-0123456789AC',
              placaVmCcp: 'ABC123',
              fechaCertificacionCcp: '2026-11-19T10:00:00',
              remolquesCcp: [{ subTipoRemCcp: 'CTR004', placaCcp: 'REM001' }],
            },
          ],
        },
        transporteAereo: {
          permSct: 'TPTA01',
          numPermisoSct: 'PA1',
          matriculaAeronave: 'XA-ABC',
          nombreAseg: 'ASEG',
          numPolizaSeguro: 'POL',
          numeroGuia: '139-12345675',
          lugarContrato: 'CDMX',
          codigoTransportista: 'CA143',
          rfcEmbarcador: 'EKU9003173C9',
          numRegIdTribEmbarc: '123456789',
          residenciaFiscalEmbarc: 'USA',
          nombreEmbarcador: 'Embarcador',
        },
        transporteFerroviario: {
          tipoDeServicio: 'TS02',
          tipoDeTrafico: 'TT01',
          nombreAseg: 'ASEG',
          numPolizaSeguro: 'POL',
          derechosDePaso: [{ tipoDerechoDePaso: 'CDP114', kilometrajePagado: d('10.00') }],
          carros: [
            {
              tipoCarro: 'TC05',
              matriculaCarro: 'TTX123',
              guiaCarro: 'G1',
              toneladasNetasCarro: d('10'),
              contenedores: [{ tipoContenedor: 'TC02', pesoContenedorVacio: d('1'), pesoNetoMercancia: d('2') }],
            },
          ],
        },
      },
      figuraTransporte: [
        {
          tipoFigura: '02',
          rfcFigura: 'ICV060329BY0',
          numLicencia: 'LIC123',
          nombreFigura: 'Propietario',
          numRegIdTribFigura: '123456789',
          residenciaFiscalFigura: 'USA',
          partesTransporte: ['PT01', 'PT04'],
          domicilio,
        },
      ],
    };
    await expectSatValid(m);
    const cadena = cadenaOriginal(parseXml(cfdiDocument(m)));
    // Spot checks that the optional attributes are in the chain at all (the XSLT comparison checks their order).
    for (const value of [
      '|Otra materia|',
      '|ANG031/2024|',
      '|PREC1|CCCABCDE-1234-4321-8ABC-0123456789AC|ABC123|2026-11-19T10:00:00|CTR004|REM001|',
      '|TC02|1|2|',
      '|PT01|PT04|',
    ])
      expect(cadena).toContain(value);
  });
});
