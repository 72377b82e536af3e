import { beforeAll, describe, expect, test } from 'bun:test';
import { cfdis } from '../../../src/db/schema/index.ts';
import { CARTAS_PORTE } from '../../cfdi/cartaporte31/corpus.ts';
import { createTestApp, ICV, issuer, READY } from '../../helpers.ts';

/**
 * Issue 23, acceptance 2: invalid Carta Porte requests, each → 400 naming the field (`carta_porte.…`, or the CFDI's
 * own field a Carta Porte rule is about) and SAT's rule code from the Matriz de errores (CP1xx/CP2xx) where SAT has
 * one; nothing is stored, and /cfdis/validate reports the same problem. Each case starts from a corpus document that
 * stamps (tests/cfdi/corpus.test.ts), so the one change is what makes it fail.
 */
const t = await createTestApp();
let key = '';
beforeAll(async () => {
  key = (await issuer(t, READY)).key;
});

/** A request, edited in place field by field. */
type Body = any;
/** A deep copy of the corpus document whose name starts with `name`, changed by `edit`. */
const variant = (name: string, edit: (body: Body, cp: Body) => void) => (): Body => {
  const found = CARTAS_PORTE.find(([n]) => n.startsWith(name));
  if (!found) throw new Error(`no corpus document ${name}`);
  const body = structuredClone(found[1]);
  edit(body, body.carta_porte);
  return body;
};
const AUTO_T = 'Carta Porte T, autotransporte: own goods';
const AUTO_I = 'Carta Porte I, autotransporte: a carrier bills';
const DOS = 'Carta Porte T, autotransporte: two destinations';
const PELIGROSO = 'Carta Porte T, autotransporte: hazardous diesel';
const MEDICINAS = 'Carta Porte T, autotransporte: medicines';
const EXPORT = 'Carta Porte T, autotransporte: export';
const IMPORT = 'Carta Porte T, autotransporte: import';
const MARITIMO = 'Carta Porte T, marítimo: containerised';
const AEREO = 'Carta Porte T, aéreo';
const FERROVIARIO = 'Carta Porte T, ferroviario';
const INTERMODAL = 'Carta Porte I, ferroviario: intermodal';
const pedimento = { tipo_documento: '01', num_pedimento: '26  24  3420  6000123', rfc_impo: 'EKU9003173C9' };

/** [name, request, field, SAT's code (undefined: the schema's or our own check)]. */
const CASES: [string, () => Body, string, string | undefined][] = [
  // The CFDI that carries it.
  ['T in MXN', variant(AUTO_T, (b) => (b.moneda = 'MXN')), 'moneda', 'CP103'],
  ['T to another receptor', variant(AUTO_T, (b) => (b.receptor = { ...ICV, uso_cfdi: 'S01' })), 'receptor.rfc', 'CP107'],
  ['T with uso_cfdi G03', variant(AUTO_T, (b) => (b.receptor.uso_cfdi = 'G03')), 'receptor.uso_cfdi', 'CP111'],
  ['T whose concepto is not a mercancía', variant(AUTO_T, (b) => (b.conceptos[0].clave_prod_serv = '43211503')), 'conceptos[0].clave_prod_serv', undefined],
  ['I billing something other than freight', variant(AUTO_I, (b) => (b.conceptos[0].clave_prod_serv = '84111506')), 'conceptos[0].clave_prod_serv', 'CP109'],
  [
    'I billing intermodal freight with one transport',
    variant(AUTO_I, (b) => (b.conceptos[0].clave_prod_serv = '78101900')),
    'conceptos[0].clave_prod_serv',
    'CP110',
  ],
  [
    'an Egreso with carta_porte',
    variant(AUTO_I, (b) => Object.assign(b, { tipo: 'E', cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['5FB2822E-396D-4725-8521-CDC4BDD20CCF'] }] })),
    'carta_porte',
    'CP114',
  ],
  ['no transport at all', variant(AUTO_T, (_b, cp) => delete cp.autotransporte), 'carta_porte', 'CP148'],
  ['id_ccp not CCC + a UUID tail', variant(AUTO_T, (_b, cp) => (cp.id_ccp = 'ABC12345-1234-4321-8ABC-0123456789AB')), 'carta_porte.id_ccp', undefined],
  // International.
  ['international without customs regimes', variant(EXPORT, (_b, cp) => delete cp.regimenes_aduaneros), 'carta_porte.regimenes_aduaneros', 'CP116'],
  ['national with a customs regime', variant(AUTO_T, (_b, cp) => (cp.regimenes_aduaneros = ['IMD'])), 'carta_porte.regimenes_aduaneros', 'CP116'],
  ['goods entering under an export regime', variant(IMPORT, (_b, cp) => (cp.regimenes_aduaneros = ['EXD'])), 'carta_porte.regimenes_aduaneros[0]', 'CP118'],
  ['goods leaving under an import regime', variant(EXPORT, (_b, cp) => (cp.regimenes_aduaneros = ['IMD'])), 'carta_porte.regimenes_aduaneros[0]', 'CP169'],
  ['international without entrada_salida_merc', variant(EXPORT, (_b, cp) => delete cp.entrada_salida_merc), 'carta_porte.entrada_salida_merc', 'CP119'],
  ['national with pais_origen_destino', variant(AUTO_T, (_b, cp) => (cp.pais_origen_destino = 'USA')), 'carta_porte.pais_origen_destino', 'CP122'],
  ['international without via_entrada_salida', variant(EXPORT, (_b, cp) => delete cp.via_entrada_salida), 'carta_porte.via_entrada_salida', 'CP123'],
  ['eleven customs regimes', variant(IMPORT, (_b, cp) => (cp.regimenes_aduaneros = Array(11).fill('IMD'))), 'carta_porte.regimenes_aduaneros', undefined],
  [
    'international goods without tipo_materia',
    variant(EXPORT, (_b, cp) => delete cp.mercancias[0].tipo_materia),
    'carta_porte.mercancias[0].tipo_materia',
    'CP170',
  ],
  [
    'goods entering without customs documents',
    variant(IMPORT, (_b, cp) => delete cp.mercancias[0].documentacion_aduanera),
    'carta_porte.mercancias[0].documentacion_aduanera',
    'CP172',
  ],
  [
    'goods leaving with an import pedimento',
    variant(EXPORT, (_b, cp) => (cp.mercancias[0].documentacion_aduanera = [pedimento])),
    'carta_porte.mercancias[0].documentacion_aduanera[0].tipo_documento',
    'CP173',
  ],
  [
    'a pedimento without its number',
    variant(IMPORT, (_b, cp) => delete cp.mercancias[0].documentacion_aduanera[0].num_pedimento),
    'carta_porte.mercancias[0].documentacion_aduanera[0].num_pedimento',
    'CP174',
  ],
  [
    'a pedimento of an aduana that does not exist',
    variant(IMPORT, (_b, cp) => (cp.mercancias[0].documentacion_aduanera[0].num_pedimento = '26  99  3420  6000123')),
    'carta_porte.mercancias[0].documentacion_aduanera[0].num_pedimento',
    'CP174',
  ],
  [
    'a pedimento without the importer',
    variant(IMPORT, (_b, cp) => delete cp.mercancias[0].documentacion_aduanera[0].rfc_impo),
    'carta_porte.mercancias[0].documentacion_aduanera[0].rfc_impo',
    'CP176',
  ],
  // Ubicaciones.
  ['distances that do not add up', variant(DOS, (_b, cp) => (cp.total_dist_rec = '100')), 'carta_porte.total_dist_rec', 'CP126'],
  [
    'a Destino by road without its distance',
    variant(AUTO_T, (_b, cp) => delete cp.ubicaciones[1].distancia_recorrida),
    'carta_porte.ubicaciones[1].distancia_recorrida',
    'CP141',
  ],
  [
    'an Origen with a distance',
    variant(AUTO_T, (_b, cp) => (cp.ubicaciones[0].distancia_recorrida = '10')),
    'carta_porte.ubicaciones[0].distancia_recorrida',
    'CP141',
  ],
  ['a total distance by air', variant(AEREO, (_b, cp) => (cp.total_dist_rec = '706')), 'carta_porte.total_dist_rec', 'CP125'],
  [
    'no Destino',
    variant(AUTO_T, (_b, cp) => (cp.ubicaciones[1] = { ...cp.ubicaciones[0], id_ubicacion: 'OR000002', fecha_hora_salida_llegada: '2026-11-20T09:00:00' })),
    'carta_porte.ubicaciones',
    'CP130',
  ],
  [
    'a Destino reached before the departure',
    variant(AUTO_T, (_b, cp) => (cp.ubicaciones[1].fecha_hora_salida_llegada = '2026-11-20T07:00:00')),
    'carta_porte.ubicaciones[1].fecha_hora_salida_llegada',
    undefined,
  ],
  [
    'destinations out of order',
    variant(DOS, (_b, cp) => (cp.ubicaciones[2].fecha_hora_salida_llegada = '2026-11-20T10:00:00')),
    'carta_porte.ubicaciones[2].fecha_hora_salida_llegada',
    undefined,
  ],
  ['the route starting at a Destino', variant(AUTO_T, (_b, cp) => cp.ubicaciones.reverse()), 'carta_porte.ubicaciones[0].tipo_ubicacion', undefined],
  [
    'an Origen with a Destino id',
    variant(AUTO_T, (_b, cp) => (cp.ubicaciones[0].id_ubicacion = 'DE000009')),
    'carta_porte.ubicaciones[0].id_ubicacion',
    undefined,
  ],
  [
    'two ubicaciones with one id',
    variant(DOS, (_b, cp) => (cp.ubicaciones[2].id_ubicacion = 'DE000001')),
    'carta_porte.ubicaciones[2].id_ubicacion',
    undefined,
  ],
  [
    'goods carried to no such Destino',
    variant(DOS, (_b, cp) => (cp.mercancias[0].cantidad_transporta[1].id_destino = 'DE000099')),
    'carta_porte.mercancias[0].cantidad_transporta[1].id_destino',
    'CP179',
  ],
  [
    'a foreign addressee without its tax id',
    variant(EXPORT, (_b, cp) => delete cp.ubicaciones[1].num_reg_id_trib),
    'carta_porte.ubicaciones[1].num_reg_id_trib',
    'CP133',
  ],
  [
    'a foreign tax residence in Mexico',
    variant(EXPORT, (_b, cp) => (cp.ubicaciones[1].residencia_fiscal = 'MEX')),
    'carta_porte.ubicaciones[1].residencia_fiscal',
    'CP134',
  ],
  [
    'a código postal of another estado',
    variant(AUTO_T, (_b, cp) => Object.assign(cp.ubicaciones[0].domicilio, { estado: 'JAL', codigo_postal: '01000' })),
    'carta_porte.ubicaciones[0].domicilio.codigo_postal',
    'CP147',
  ],
  [
    'a municipio that does not exist',
    variant(AUTO_T, (_b, cp) => (cp.ubicaciones[1].domicilio.municipio = '999')),
    'carta_porte.ubicaciones[1].domicilio.municipio',
    'CP145',
  ],
  [
    'an estado that does not exist',
    variant(AUTO_T, (_b, cp) => (cp.ubicaciones[0].domicilio.estado = 'XX')),
    'carta_porte.ubicaciones[0].domicilio.estado',
    'CP146',
  ],
  ['a station by road', variant(AUTO_T, (_b, cp) => (cp.ubicaciones[0].num_estacion = 'PM046')), 'carta_porte.ubicaciones[0].num_estacion', 'CP135'],
  ['a port as an airport', variant(AEREO, (_b, cp) => (cp.ubicaciones[0].num_estacion = 'PM001')), 'carta_porte.ubicaciones[0].num_estacion', 'CP136'],
  [
    'a Mexican station under another name',
    variant(MARITIMO, (_b, cp) => (cp.ubicaciones[0].nombre_estacion = 'Puerto Manzanillo')),
    'carta_porte.ubicaciones[0].nombre_estacion',
    'CP137',
  ],
  [
    'a port without navegacion_trafico',
    variant(MARITIMO, (_b, cp) => delete cp.ubicaciones[1].navegacion_trafico),
    'carta_porte.ubicaciones[1].navegacion_trafico',
    'CP139',
  ],
  ['rail with one Destino', variant(FERROVIARIO, (_b, cp) => cp.ubicaciones.splice(1, 4)), 'carta_porte.ubicaciones', 'CP129'],
  [
    'an intermediate rail station with an address',
    variant(FERROVIARIO, (_b, cp) => (cp.ubicaciones[2].domicilio = cp.ubicaciones[0].domicilio)),
    'carta_porte.ubicaciones[2].domicilio',
    'CP142',
  ],
  // Mercancías.
  ['a wrong number of mercancías', variant(AUTO_T, (_b, cp) => (cp.num_total_mercancias = 3)), 'carta_porte.num_total_mercancias', 'CP154'],
  ['a gross weight that is not the sum', variant(AUTO_T, (_b, cp) => (cp.peso_bruto_total = '801')), 'carta_porte.peso_bruto_total', 'CP149'],
  ['an unknown product key', variant(AUTO_T, (_b, cp) => (cp.mercancias[0].bienes_transp = '99999999')), 'carta_porte.mercancias[0].bienes_transp', undefined],
  [
    'diesel not stated hazardous or not',
    variant(PELIGROSO, (_b, cp) => delete cp.mercancias[0].material_peligroso),
    'carta_porte.mercancias[0].material_peligroso',
    'CP155',
  ],
  [
    'a product that is never hazardous stated hazardous',
    variant(AEREO, (_b, cp) => (cp.mercancias[0].material_peligroso = true)),
    'carta_porte.mercancias[0].material_peligroso',
    'CP155',
  ],
  [
    'hazardous goods without their material',
    variant(PELIGROSO, (_b, cp) => delete cp.mercancias[0].cve_material_peligroso),
    'carta_porte.mercancias[0].cve_material_peligroso',
    'CP156',
  ],
  ['hazardous goods without packaging', variant(PELIGROSO, (_b, cp) => delete cp.mercancias[0].embalaje), 'carta_porte.mercancias[0].embalaje', 'CP157'],
  ['packaging on goods that are not hazardous', variant(AUTO_T, (_b, cp) => (cp.mercancias[0].embalaje = '4G')), 'carta_porte.mercancias[0].embalaje', 'CP157'],
  [
    'a hazardous material that does not exist',
    variant(PELIGROSO, (_b, cp) => (cp.mercancias[0].cve_material_peligroso = '9999')),
    'carta_porte.mercancias[0].cve_material_peligroso',
    'CP156',
  ],
  [
    'a medicine without its lot',
    variant(MEDICINAS, (_b, cp) => delete cp.mercancias[0].lote_medicamento),
    'carta_porte.mercancias[0].lote_medicamento',
    'CP159',
  ],
  ['a value by air not declared', variant(AEREO, (_b, cp) => delete cp.mercancias[0].valor_mercancia), 'carta_porte.mercancias[0].valor_mercancia', 'CP167'],
  ['a value without its currency', variant(MEDICINAS, (_b, cp) => delete cp.mercancias[0].moneda), 'carta_porte.mercancias[0].moneda', 'CP168'],
  [
    'pallets moved without their tracking guides',
    variant(EXPORT, (_b, cp) => delete cp.mercancias[0].guias_identificacion),
    'carta_porte.mercancias[0].guias_identificacion',
    'CP177',
  ],
  [
    'by sea without the weights of the goods',
    variant(MARITIMO, (_b, cp) => delete cp.mercancias[0].detalle_mercancia),
    'carta_porte.mercancias[0].detalle_mercancia',
    'CP181',
  ],
  [
    'reverse logistics by sea',
    variant(MARITIMO, (_b, cp) => (cp.logistica_inversa_recoleccion_devolucion = true)),
    'carta_porte.logistica_inversa_recoleccion_devolucion',
    'CP153',
  ],
  [
    'Istmo without the pole of origin',
    variant(AUTO_T, (_b, cp) => Object.assign(cp, { registro_istmo: true, ubicacion_polo_destino: '02' })),
    'carta_porte.ubicacion_polo_origen',
    'CP127',
  ],
  // Autotransporte.
  [
    'hazardous goods by road without environmental insurance',
    variant(PELIGROSO, (_b, cp) => delete cp.autotransporte.seguros.asegura_med_ambiente),
    'carta_porte.autotransporte.seguros.asegura_med_ambiente',
    'CP182',
  ],
  [
    'an environmental insurer without a policy',
    variant(PELIGROSO, (_b, cp) => delete cp.autotransporte.seguros.poliza_med_ambiente),
    'carta_porte.autotransporte.seguros.poliza_med_ambiente',
    'CP183',
  ],
  ['a tractor-trailer without its trailer', variant(AUTO_I, (_b, cp) => delete cp.autotransporte.remolques), 'carta_porte.autotransporte.remolques', 'CP184'],
  [
    'a rigid truck with a trailer',
    variant(AUTO_T, (_b, cp) => (cp.autotransporte.remolques = [{ sub_tipo_rem: 'CTR004', placa: '89UK2F' }])),
    'carta_porte.autotransporte.remolques',
    'CP184',
  ],
  [
    'three trailers',
    variant(AUTO_I, (_b, cp) => (cp.autotransporte.remolques = Array(3).fill({ sub_tipo_rem: 'CTR004', placa: '89UK2F' }))),
    'carta_porte.autotransporte.remolques',
    undefined,
  ],
  ['an air permit on a truck', variant(AUTO_T, (_b, cp) => (cp.autotransporte.perm_sct = 'TPTA01')), 'carta_porte.autotransporte.perm_sct', undefined],
  [
    'a vehicle configuration that does not exist',
    variant(AUTO_T, (_b, cp) => (cp.autotransporte.identificacion_vehicular.config_vehicular = 'ZZZ')),
    'carta_porte.autotransporte.identificacion_vehicular.config_vehicular',
    undefined,
  ],
  [
    'a plate with a hyphen',
    variant(AUTO_T, (_b, cp) => (cp.autotransporte.identificacion_vehicular.placa_vm = 'AB-123')),
    'carta_porte.autotransporte.identificacion_vehicular.placa_vm',
    undefined,
  ],
  // Figuras.
  ['a truck without its figures', variant(AUTO_T, (_b, cp) => delete cp.figura_transporte), 'carta_porte.figura_transporte', 'CP193'],
  [
    'a truck with an owner and no operator',
    variant(
      AUTO_T,
      (_b, cp) => (cp.figura_transporte = [{ tipo_figura: '02', rfc_figura: 'ICV060329BY0', nombre_figura: 'INMOBILIARIA CVA', partes_transporte: ['PT01'] }]),
    ),
    'carta_porte.figura_transporte',
    'CP194',
  ],
  [
    'missing licence for road transport',
    variant(AUTO_T, (_b, cp) => delete cp.figura_transporte[0].num_licencia),
    'carta_porte.figura_transporte[0].num_licencia',
    'CP196',
  ],
  [
    'an owner without the parts that are theirs',
    variant(AUTO_T, (_b, cp) => cp.figura_transporte.push({ tipo_figura: '02', rfc_figura: 'ICV060329BY0', nombre_figura: 'INMOBILIARIA CVA' })),
    'carta_porte.figura_transporte[1].partes_transporte',
    'CP199',
  ],
  [
    'a figure without RFC nor foreign tax id',
    variant(AUTO_T, (_b, cp) => delete cp.figura_transporte[0].rfc_figura),
    'carta_porte.figura_transporte[0].num_reg_id_trib_figura',
    'CP197',
  ],
  // Marítimo, aéreo, ferroviario.
  [
    'a foreign vessel without a navigation permit',
    variant(MARITIMO, (_b, cp) => (cp.transporte_maritimo.nacionalidad_embarc = 'PAN')),
    'carta_porte.transporte_maritimo.permiso_temp_navegacion',
    'CP185',
  ],
  [
    'a truck on a ferry without its Carta Porte',
    variant(
      MARITIMO,
      (_b, cp) =>
        (cp.transporte_maritimo.contenedores = [{ tipo_contenedor: 'CM011', placa_vm_ccp: '501AA2', fecha_certificacion_ccp: '2026-11-19T10:00:00' }]),
    ),
    'carta_porte.transporte_maritimo.contenedores[0].id_ccp_relacionado',
    'CP186',
  ],
  [
    'a shipper by air without RFC nor tax id',
    variant(AEREO, (_b, cp) => delete cp.transporte_aereo.rfc_embarcador),
    'carta_porte.transporte_aereo.num_reg_id_trib_embarc',
    'CP189',
  ],
  [
    'an intermodal rail car without containers',
    variant(INTERMODAL, (_b, cp) => delete cp.transporte_ferroviario.carros[0].contenedores),
    'carta_porte.transporte_ferroviario.carros[0].contenedores',
    'CP192',
  ],
  [
    'a car whose tonnes are not its containers’',
    variant(INTERMODAL, (_b, cp) => (cp.transporte_ferroviario.carros[0].toneladas_netas_carro = '25')),
    'carta_porte.transporte_ferroviario.carros[0].toneladas_netas_carro',
    'CP191',
  ],
  [
    'two transports and goods not saying which carries them',
    variant(DOS, (_b, cp) => {
      cp.transporte_aereo = {
        perm_sct: 'TPTA01',
        num_permiso_sct: 'DGAC-1',
        numero_guia: '139-12345675',
        codigo_transportista: 'CA143',
        rfc_embarcador: 'EKU9003173C9',
      };
    }),
    'carta_porte.mercancias[0].cantidad_transporta[0].cves_transporte',
    'CP180',
  ],
];

describe('the baselines stamp', () => {
  const bases = [...new Set(CASES.map(([, build]) => build))];
  test('every case starts from a corpus document that validates', async () => {
    for (const name of [AUTO_T, AUTO_I, DOS, PELIGROSO, MEDICINAS, EXPORT, IMPORT, MARITIMO, AEREO, FERROVIARIO, INTERMODAL]) {
      const res = await t.call('POST', '/cfdis/validate', { token: key, body: variant(name, () => undefined)() });
      expect([name, res.json]).toEqual([name, { valid: true, errors: [], warnings: [] }]);
    }
    expect(bases.length).toBe(CASES.length);
  });
});

describe('invalid Carta Porte requests → 400 naming the field and the rule', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(30);

  test.each(CASES)('%s', async (_name, build, field, rule) => {
    const body = build();
    const before = await t.count(cfdis);
    const res = await t.call('POST', '/cfdis', { token: key, body });
    expect(res.status).toBe(400);
    const details = res.json.error.details as { field: string; issue: string; rule?: string }[];
    expect(details.map((d) => `${d.field} ${d.rule}`)).toContain(`${field} ${rule}`);
    expect(details.find((d) => d.field === field && d.rule === rule)!.issue.length).toBeGreaterThan(10);
    expect(await t.count(cfdis)).toEqual(before);
    // /cfdis/validate agrees: the same problem in its verdict, or the same 400 for a malformed request.
    const check = await t.call('POST', '/cfdis/validate', { token: key, body });
    if (check.status === 200) {
      expect(check.json.valid).toBe(false);
      expect(check.json.errors).toContainEqual(details.find((d) => d.field === field && d.rule === rule));
    } else {
      expect(check.status).toBe(400);
      expect(check.json.error.details).toEqual(details);
    }
  });
});
