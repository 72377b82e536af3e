/** A corpus of varied, valid invoice requests for the EKU9003173C9 test tenant (CP 42501). */
const ICV = { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' };
const PF = { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '612', domicilio_fiscal: '01000', uso_cfdi: 'D01' };
const iva16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
const servicio = (over: Record<string, unknown> = {}) => ({
  clave_prod_serv: '84111506',
  clave_unidad: 'E48',
  descripcion: 'Servicio de facturación',
  cantidad: 1,
  valor_unitario: 1000,
  impuestos: iva16,
  ...over,
});

export const CORPUS: [string, Record<string, unknown>][] = [
  ['minimal request (spec): no taxes, defaults', { tipo: 'I', receptor: ICV, conceptos: [{ clave_prod_serv: '84111506', clave_unidad: 'E48', descripcion: 'Consultoría', cantidad: 1, valor_unitario: 500 }] }],
  ['IVA 16 %', { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio()] }],
  ['IVA 16 % with descuentos on several conceptos', {
    tipo: 'I', forma_pago: '01', receptor: ICV,
    conceptos: [servicio({ cantidad: 4, valor_unitario: '956.04', descuento: '956.04' }), servicio({ cantidad: 3, valor_unitario: '10.10', descuento: '0.30' }), servicio({ valor_unitario: '0.10' })],
  }],
  ['IVA 8 % (región fronteriza)', { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio({ impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' }] } })] }],
  ['IVA 0 %', { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio({ clave_prod_serv: '50192100', clave_unidad: 'H87', descripcion: 'Botanas', impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0' }] } })] }],
  ['IVA exento', { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio({ descripcion: 'Colegiatura', impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Exento' }] } })] }],
  ['exento and 16 % mixed', {
    tipo: 'I', forma_pago: '03', receptor: ICV,
    conceptos: [servicio({ impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Exento' }] } }), servicio({ valor_unitario: '250.50' })],
  }],
  ['IEPS tasa 26.5 % + IVA 16 %', {
    tipo: 'I', forma_pago: '03', receptor: ICV,
    conceptos: [servicio({ clave_prod_serv: '50202306', clave_unidad: 'H87', descripcion: 'Cerveza', cantidad: 24, valor_unitario: '18.50',
      impuestos: { traslados: [{ impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.265000' }, { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] } })],
  }],
  ['IEPS cuota per liter', {
    tipo: 'I', forma_pago: '03', receptor: ICV,
    conceptos: [servicio({ clave_prod_serv: '15101514', clave_unidad: 'LTR', descripcion: 'Gasolina magna', cantidad: '40.5', valor_unitario: '19.85',
      impuestos: { traslados: [{ impuesto: '003', tipo_factor: 'Cuota', tasa_o_cuota: '6.167800', base: '40.5' }, { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] } })],
  }],
  ['ISR and IVA retenciones (honorarios)', {
    tipo: 'I', forma_pago: '03', receptor: ICV,
    conceptos: [servicio({ valor_unitario: '1250.30', impuestos: {
      traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }],
      retenciones: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' }, { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.106667' }],
    } })],
  }],
  ['USD with tipo de cambio', { tipo: 'I', forma_pago: '03', moneda: 'USD', tipo_cambio: '17.2533', receptor: ICV, conceptos: [servicio({ valor_unitario: '99.99', cantidad: 3 })] }],
  ['EUR with tipo de cambio', { tipo: 'I', forma_pago: '03', moneda: 'EUR', tipo_cambio: 19.5, receptor: ICV, conceptos: [servicio({ valor_unitario: '45.5' })] }],
  ['JPY (no decimals)', { tipo: 'I', forma_pago: '03', moneda: 'JPY', tipo_cambio: '0.117', receptor: ICV, conceptos: [servicio({ valor_unitario: '12345', cantidad: 7 })] }],
  ['MXN with tipo_cambio 1', { tipo: 'I', forma_pago: '03', tipo_cambio: 1, receptor: ICV, conceptos: [servicio()] }],
  ['público en general with informacion_global', {
    tipo: 'I', forma_pago: '01', receptor: { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' },
    informacion_global: { periodicidad: '04', meses: '10', anio: 2026 },
    conceptos: [
      { clave_prod_serv: '01010101', no_identificacion: 'T-1001', clave_unidad: 'ACT', descripcion: 'Venta', cantidad: 1, valor_unitario: '431.03', impuestos: iva16 },
      { clave_prod_serv: '01010101', no_identificacion: 'T-1002', clave_unidad: 'ACT', descripcion: 'Venta', cantidad: 1, valor_unitario: '86.21', impuestos: iva16 },
    ],
  }],
  ['6-decimal quantities and prices', {
    tipo: 'I', forma_pago: '03', receptor: ICV,
    conceptos: [servicio({ cantidad: '3.141592', valor_unitario: '2.718281' }), servicio({ cantidad: '0.000001', valor_unitario: '999999.999999' }), servicio({ cantidad: '1.5', valor_unitario: '0.333333' })],
  }],
  ['120 conceptos', {
    tipo: 'I', forma_pago: '03', receptor: ICV,
    conceptos: Array.from({ length: 120 }, (_, i) => servicio({ descripcion: `Partida ${i + 1}`, cantidad: (i % 7) + 1, valor_unitario: `${(i * 13.37 + 1).toFixed(2)}`, no_identificacion: `SKU-${i}` })),
  }],
  ['names with Ñ, &, accents and quotes', {
    tipo: 'I', forma_pago: '03',
    receptor: { rfc: 'Ñ&A120101AB1', nombre: 'ÑANDÚ & ASOCIADOS "EL PINGÜINO"', regimen_fiscal: '601', domicilio_fiscal: '06600', uso_cfdi: 'G03' },
    conceptos: [servicio({ descripcion: 'Diseño de logotipo "Águila" <versión 2> & más: ¿sí? ¡claro! 100% ñ', unidad: 'Servicio' })],
  }],
  ['foreign receptor (XEXX) with residencia fiscal', {
    tipo: 'I', forma_pago: '03', moneda: 'USD', tipo_cambio: '17.10',
    receptor: { rfc: 'XEXX010101000', nombre: 'ACME CORPORATION', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01', residencia_fiscal: 'USA', num_reg_id_trib: '123456789' },
    conceptos: [servicio({ impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.000000' }] } })],
  }],
  ['persona física receptor, deducción personal D01', { tipo: 'I', forma_pago: '04', receptor: PF, conceptos: [servicio({ clave_prod_serv: '85121800', descripcion: 'Consulta médica', impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Exento' }] } })] }],
  ['PPD with forma_pago 99 and condiciones', { tipo: 'I', metodo_pago: 'PPD', forma_pago: '99', condiciones_de_pago: 'Crédito a 30 días', receptor: ICV, conceptos: [servicio({ valor_unitario: '15000' })] }],
  ['sustitución (cfdi_relacionados 04)', { tipo: 'I', forma_pago: '03', receptor: ICV, cfdi_relacionados: [{ tipo_relacion: '04', uuids: ['6F35D3B5-3651-5370-BC2C-14CDBE384CD7'] }], conceptos: [servicio()] }],
  ['objeto_imp 03 (no desglose)', { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio({ objeto_imp: '03', impuestos: undefined })] }],
  ['a cuenta de terceros', {
    tipo: 'I', forma_pago: '03', receptor: ICV,
    conceptos: [servicio({ a_cuenta_terceros: { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '612', domicilio_fiscal: '01000' } })],
  }],
  ['IEPS 8 % and IVA 16 % on several lines (several traslado groups)', {
    tipo: 'I', forma_pago: '03', receptor: ICV,
    conceptos: [
      servicio({ clave_prod_serv: '50161800', clave_unidad: 'H87', descripcion: 'Dulces', valor_unitario: '12.40', cantidad: 10, impuestos: { traslados: [{ impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' }, { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] } }),
      servicio({ clave_prod_serv: '50161800', clave_unidad: 'H87', descripcion: 'Chocolates', valor_unitario: '33.33', cantidad: 3, impuestos: { traslados: [{ impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' }, { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] } }),
      servicio({ valor_unitario: '0.01' }),
    ],
  }],
  ['large amounts', { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio({ cantidad: 3, valor_unitario: '999999999.99' })] }],
  ['tax base and importe sent by the caller', {
    tipo: 'I', forma_pago: '03', receptor: ICV,
    conceptos: [servicio({ valor_unitario: '8.620690', impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000', base: '8.620690', importe: '1.379310' }] } })],
  }],
  ['past fecha within 72 h', { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio()], fecha: 'PAST' }],
];

/**
 * Invoices the Egreso corpus relates to: `$1`… in a corpus request's cfdi_relacionados stand for the UUIDs these get
 * when the test issues them (an Egreso may only relate to the tenant's own vigente invoices to the same receptor).
 */
export const BASES: Record<string, unknown>[] = [
  { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio({ cantidad: 2, valor_unitario: 2500 })] },
  { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio({ valor_unitario: 12000 })] },
  { tipo: 'I', forma_pago: '01', receptor: ICV, conceptos: [servicio({ clave_prod_serv: '43211503', clave_unidad: 'H87', descripcion: 'Computadora portátil', cantidad: 3, valor_unitario: 15999 })] },
  { tipo: 'I', metodo_pago: 'PPD', forma_pago: '99', receptor: ICV, conceptos: [servicio({ valor_unitario: 8000 })] },
];
const G02 = { ...ICV, uso_cfdi: 'G02' };
const nota = (over: Record<string, unknown> = {}) => servicio({ clave_unidad: 'ACT', descripcion: 'Bonificación por pronto pago', valor_unitario: '100', ...over });

export const EGRESOS: [string, Record<string, unknown>][] = [
  ['Egreso: nota de crédito (01) for one invoice', { tipo: 'E', forma_pago: '03', receptor: G02, cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$1'] }], conceptos: [nota()] }],
  ['Egreso: nota de crédito (01) covering two invoices, two conceptos', {
    tipo: 'E', forma_pago: '03', receptor: G02, cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$1', '$2'] }],
    conceptos: [nota({ descripcion: 'Descuento sobre factura 1', valor_unitario: '250.00' }), nota({ descripcion: 'Descuento sobre factura 2', valor_unitario: '1200.00' })],
  }],
  ['Egreso: devolución de mercancía (03)', {
    tipo: 'E', forma_pago: '01', receptor: G02, cfdi_relacionados: [{ tipo_relacion: '03', uuids: ['$3'] }],
    conceptos: [servicio({ clave_prod_serv: '43211503', clave_unidad: 'H87', descripcion: 'Devolución: computadora portátil', valor_unitario: 15999 })],
  }],
  ['Egreso: aplicación de anticipo (07, forma de pago 30)', {
    tipo: 'E', forma_pago: '30', receptor: G02, cfdi_relacionados: [{ tipo_relacion: '07', uuids: ['$2'] }],
    conceptos: [servicio({ clave_unidad: 'ACT', descripcion: 'Aplicación de anticipo', valor_unitario: '3000.00' })],
  }],
  ['Egreso in USD with tipo de cambio', {
    tipo: 'E', forma_pago: '03', moneda: 'USD', tipo_cambio: '17.2345', receptor: G02, cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$2'] }],
    conceptos: [nota({ valor_unitario: '12.34' })],
  }],
  ['Egreso with descuento, IEPS and IVA', {
    tipo: 'E', forma_pago: '03', receptor: G02, cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$3'] }],
    conceptos: [nota({ clave_prod_serv: '50161800', clave_unidad: 'H87', descripcion: 'Bonificación sobre dulces', cantidad: 10, valor_unitario: '12.40', descuento: '4.00', impuestos: { traslados: [{ impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' }, { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] } })],
  }],
  ['Egreso with retenciones of ISR and IVA', {
    tipo: 'E', forma_pago: '03', receptor: G02, cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$1'] }],
    conceptos: [nota({ valor_unitario: '500.00', impuestos: { traslados: iva16.traslados, retenciones: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' }, { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.106667' }] } })],
  }],
  ['Egreso with two relation types (01 and 03)', {
    tipo: 'E', forma_pago: '03', receptor: G02, cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$1'] }, { tipo_relacion: '03', uuids: ['$3'] }],
    conceptos: [nota({ valor_unitario: '80.00' }), servicio({ clave_prod_serv: '43211503', clave_unidad: 'H87', descripcion: 'Devolución parcial', valor_unitario: '999.00' })],
  }],
  ['Egreso for an unpaid PPD invoice (forma de pago 15, condonación)', {
    tipo: 'E', forma_pago: '15', receptor: G02, cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$4'] }],
    conceptos: [nota({ descripcion: 'Bonificación sobre factura a crédito', valor_unitario: '800.00' })],
  }],
];

/**
 * Turns a corpus request into the body to send: `fecha: 'PAST'` becomes two hours ago, `$n` related UUIDs the UUIDs
 * of BASES[n-1], issued through `issue` the first time one is needed.
 */
export function corpusResolver(issue: (body: Record<string, unknown>) => Promise<string>, pastFecha: () => string) {
  const uuids: Promise<string>[] = [];
  const base = (n: number) => (uuids[n] ??= issue(BASES[n - 1]!));
  return async (request: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const body = { ...request };
    if (body.fecha === 'PAST') body.fecha = pastFecha();
    const relations = body.cfdi_relacionados as { tipo_relacion: string; uuids: string[] }[] | undefined;
    if (relations) {
      body.cfdi_relacionados = await Promise.all(
        relations.map(async (r) => ({ ...r, uuids: await Promise.all(r.uuids.map((u) => (u.startsWith('$') ? base(Number(u.slice(1))) : u))) })),
      );
    }
    return body;
  };
}
