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
  [
    'minimal request (spec): no taxes, defaults',
    {
      tipo: 'I',
      receptor: ICV,
      conceptos: [{ clave_prod_serv: '84111506', clave_unidad: 'E48', descripcion: 'Consultoría', cantidad: 1, valor_unitario: 500, objeto_imp: '01' }],
    },
  ],
  ['IVA 16 %', { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio()] }],
  [
    'IVA 16 % with descuentos on several conceptos',
    {
      tipo: 'I',
      forma_pago: '01',
      receptor: ICV,
      conceptos: [
        servicio({ cantidad: 4, valor_unitario: '956.04', descuento: '956.04' }),
        servicio({ cantidad: 3, valor_unitario: '10.10', descuento: '0.30' }),
        servicio({ valor_unitario: '0.10' }),
      ],
    },
  ],
  [
    'IVA 8 % (región fronteriza)',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: [servicio({ impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' }] } })],
    },
  ],
  [
    'IVA 0 %',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: [
        servicio({
          clave_prod_serv: '50192100',
          clave_unidad: 'H87',
          descripcion: 'Botanas',
          impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0' }] },
        }),
      ],
    },
  ],
  [
    'IVA exento',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: [servicio({ descripcion: 'Colegiatura', impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Exento' }] } })],
    },
  ],
  [
    'exento and 16 % mixed',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: [servicio({ impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Exento' }] } }), servicio({ valor_unitario: '250.50' })],
    },
  ],
  [
    'IEPS tasa 26.5 % + IVA 16 %',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: [
        servicio({
          clave_prod_serv: '50202306',
          clave_unidad: 'H87',
          descripcion: 'Cerveza',
          cantidad: 24,
          valor_unitario: '18.50',
          impuestos: {
            traslados: [
              { impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.265000' },
              { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' },
            ],
          },
        }),
      ],
    },
  ],
  [
    'IEPS cuota per liter',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: [
        servicio({
          clave_prod_serv: '15101514',
          clave_unidad: 'LTR',
          descripcion: 'Gasolina magna',
          cantidad: '40.5',
          valor_unitario: '19.85',
          // Required on gasoline since the RMF 2026 (rule 2.7.1.48): Hidrocarburos y Petrolíferos.
          hidrocarburos_petroliferos: { tipo_permiso: 'PER07', numero_permiso: 'PL/12345/EXP/ES/2026', sub_producto_hyp: 'SP16' },
          impuestos: {
            traslados: [
              { impuesto: '003', tipo_factor: 'Cuota', tasa_o_cuota: '6.167800', base: '40.5' },
              { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' },
            ],
          },
        }),
      ],
    },
  ],
  [
    'ISR and IVA retenciones (honorarios)',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: [
        servicio({
          valor_unitario: '1250.30',
          impuestos: {
            traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }],
            retenciones: [
              { impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' },
              { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.106667' },
            ],
          },
        }),
      ],
    },
  ],
  [
    'USD with tipo de cambio',
    { tipo: 'I', forma_pago: '03', moneda: 'USD', tipo_cambio: '17.2533', receptor: ICV, conceptos: [servicio({ valor_unitario: '99.99', cantidad: 3 })] },
  ],
  [
    'EUR with tipo de cambio',
    { tipo: 'I', forma_pago: '03', moneda: 'EUR', tipo_cambio: 19.5, receptor: ICV, conceptos: [servicio({ valor_unitario: '45.5' })] },
  ],
  [
    'JPY (no decimals)',
    { tipo: 'I', forma_pago: '03', moneda: 'JPY', tipo_cambio: '0.117', receptor: ICV, conceptos: [servicio({ valor_unitario: '12345', cantidad: 7 })] },
  ],
  ['MXN with tipo_cambio 1', { tipo: 'I', forma_pago: '03', tipo_cambio: 1, receptor: ICV, conceptos: [servicio()] }],
  [
    'público en general with informacion_global',
    {
      tipo: 'I',
      forma_pago: '01',
      receptor: { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' },
      informacion_global: { periodicidad: '04', meses: '10', anio: 2026 },
      conceptos: [
        {
          clave_prod_serv: '01010101',
          no_identificacion: 'T-1001',
          clave_unidad: 'ACT',
          descripcion: 'Venta',
          cantidad: 1,
          valor_unitario: '431.03',
          impuestos: iva16,
        },
        {
          clave_prod_serv: '01010101',
          no_identificacion: 'T-1002',
          clave_unidad: 'ACT',
          descripcion: 'Venta',
          cantidad: 1,
          valor_unitario: '86.21',
          impuestos: iva16,
        },
      ],
    },
  ],
  [
    '6-decimal quantities and prices',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: [
        servicio({ cantidad: '3.141592', valor_unitario: '2.718281' }),
        servicio({ cantidad: '0.000001', valor_unitario: '999999.999999' }),
        servicio({ cantidad: '1.5', valor_unitario: '0.333333' }),
      ],
    },
  ],
  [
    '120 conceptos',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: Array.from({ length: 120 }, (_, i) =>
        servicio({ descripcion: `Partida ${i + 1}`, cantidad: (i % 7) + 1, valor_unitario: `${(i * 13.37 + 1).toFixed(2)}`, no_identificacion: `SKU-${i}` }),
      ),
    },
  ],
  [
    'names with Ñ, &, accents and quotes',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: { rfc: 'Ñ&A120101AB1', nombre: 'ÑANDÚ & ASOCIADOS "EL PINGÜINO"', regimen_fiscal: '601', domicilio_fiscal: '06600', uso_cfdi: 'G03' },
      conceptos: [servicio({ descripcion: 'Diseño de logotipo "Águila" <versión 2> & más: ¿sí? ¡claro! 100% ñ', unidad: 'Servicio' })],
    },
  ],
  [
    'foreign receptor (XEXX) with residencia fiscal',
    {
      tipo: 'I',
      forma_pago: '03',
      moneda: 'USD',
      tipo_cambio: '17.10',
      receptor: {
        rfc: 'XEXX010101000',
        nombre: 'ACME CORPORATION',
        regimen_fiscal: '616',
        domicilio_fiscal: '42501',
        uso_cfdi: 'S01',
        residencia_fiscal: 'USA',
        num_reg_id_trib: '123456789',
      },
      conceptos: [servicio({ impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.000000' }] } })],
    },
  ],
  [
    'persona física receptor, deducción personal D01',
    {
      tipo: 'I',
      forma_pago: '04',
      receptor: PF,
      conceptos: [
        servicio({ clave_prod_serv: '85121800', descripcion: 'Consulta médica', impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Exento' }] } }),
      ],
    },
  ],
  [
    'PPD with forma_pago 99 and condiciones',
    {
      tipo: 'I',
      metodo_pago: 'PPD',
      forma_pago: '99',
      condiciones_de_pago: 'Crédito a 30 días',
      receptor: ICV,
      conceptos: [servicio({ valor_unitario: '15000' })],
    },
  ],
  [
    'sustitución (cfdi_relacionados 04)',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      cfdi_relacionados: [{ tipo_relacion: '04', uuids: ['6F35D3B5-3651-5370-BC2C-14CDBE384CD7'] }],
      conceptos: [servicio()],
    },
  ],
  ['objeto_imp 03 (no desglose)', { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio({ objeto_imp: '03', impuestos: undefined })] }],
  [
    'a cuenta de terceros',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: [servicio({ a_cuenta_terceros: { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '612', domicilio_fiscal: '01000' } })],
    },
  ],
  [
    'IEPS 8 % and IVA 16 % on several lines (several traslado groups)',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: [
        servicio({
          clave_prod_serv: '50161800',
          clave_unidad: 'H87',
          descripcion: 'Dulces',
          valor_unitario: '12.40',
          cantidad: 10,
          impuestos: {
            traslados: [
              { impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' },
              { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' },
            ],
          },
        }),
        servicio({
          clave_prod_serv: '50161800',
          clave_unidad: 'H87',
          descripcion: 'Chocolates',
          valor_unitario: '33.33',
          cantidad: 3,
          impuestos: {
            traslados: [
              { impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' },
              { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' },
            ],
          },
        }),
        servicio({ valor_unitario: '0.01' }),
      ],
    },
  ],
  ['large amounts', { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio({ cantidad: 3, valor_unitario: '999999999.99' })] }],
  [
    'tax base and importe sent by the caller',
    {
      tipo: 'I',
      forma_pago: '03',
      receptor: ICV,
      conceptos: [
        servicio({
          valor_unitario: '8.620690',
          impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000', base: '8.620690', importe: '1.379310' }] },
        }),
      ],
    },
  ],
  ['past fecha within 72 h', { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio()], fecha: 'PAST' }],
];

/**
 * Invoices the Egreso corpus relates to: `$1`… in a corpus request's cfdi_relacionados stand for the UUIDs these get
 * when the test issues them (an Egreso may only relate to the tenant's own vigente invoices to the same receptor).
 */
const BASES: Record<string, unknown>[] = [
  { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio({ cantidad: 2, valor_unitario: 2500 })] },
  { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [servicio({ valor_unitario: 12000 })] },
  {
    tipo: 'I',
    forma_pago: '01',
    receptor: ICV,
    conceptos: [servicio({ clave_prod_serv: '43211503', clave_unidad: 'H87', descripcion: 'Computadora portátil', cantidad: 3, valor_unitario: 15999 })],
  },
  { tipo: 'I', metodo_pago: 'PPD', forma_pago: '99', receptor: ICV, conceptos: [servicio({ valor_unitario: 8000 })] },
  // 5–13: PPD invoices for the Pagos corpus.
  ppd([servicio({ valor_unitario: '10000.00' })]),
  ppd([
    servicio({
      valor_unitario: '25000.00',
      impuestos: {
        traslados: iva16.traslados,
        retenciones: [
          { impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' },
          { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.106667' },
        ],
      },
    }),
  ]),
  ppd([servicio({ descripcion: 'Colegiatura', valor_unitario: '4500.00', impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Exento' }] } })]),
  ppd([
    servicio({
      clave_prod_serv: '50202306',
      clave_unidad: 'H87',
      descripcion: 'Cerveza',
      cantidad: 240,
      valor_unitario: '18.50',
      impuestos: {
        traslados: [
          { impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.265000' },
          { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' },
        ],
      },
    }),
  ]),
  ppd([servicio({ valor_unitario: '7300.00', impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' }] } })]),
  ppd([servicio({ valor_unitario: '3333.33' }), servicio({ valor_unitario: '1234.56' })]),
  ppd([servicio({ valor_unitario: '1250.00' })], { moneda: 'USD', tipo_cambio: '17.2345' }),
  ppd([servicio({ valor_unitario: '980.00' })], { moneda: 'USD', tipo_cambio: '17.10' }),
  ppd([{ clave_prod_serv: '84111506', clave_unidad: 'E48', descripcion: 'Asesoría sin impuestos', cantidad: 1, valor_unitario: '6000.00', objeto_imp: '01' }]),
];
function ppd(conceptos: Record<string, unknown>[], over: Record<string, unknown> = {}): Record<string, unknown> {
  return { tipo: 'I', metodo_pago: 'PPD', forma_pago: '99', receptor: ICV, conceptos, ...over };
}
const G02 = { ...ICV, uso_cfdi: 'G02' };
const nota = (over: Record<string, unknown> = {}) =>
  servicio({ clave_unidad: 'ACT', descripcion: 'Bonificación por pronto pago', valor_unitario: '100', ...over });

export const EGRESOS: [string, Record<string, unknown>][] = [
  [
    'Egreso: nota de crédito (01) for one invoice',
    { tipo: 'E', forma_pago: '03', receptor: G02, cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$1'] }], conceptos: [nota()] },
  ],
  [
    'Egreso: nota de crédito (01) covering two invoices, two conceptos',
    {
      tipo: 'E',
      forma_pago: '03',
      receptor: G02,
      cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$1', '$2'] }],
      conceptos: [
        nota({ descripcion: 'Descuento sobre factura 1', valor_unitario: '250.00' }),
        nota({ descripcion: 'Descuento sobre factura 2', valor_unitario: '1200.00' }),
      ],
    },
  ],
  [
    'Egreso: devolución de mercancía (03)',
    {
      tipo: 'E',
      forma_pago: '01',
      receptor: G02,
      cfdi_relacionados: [{ tipo_relacion: '03', uuids: ['$3'] }],
      conceptos: [servicio({ clave_prod_serv: '43211503', clave_unidad: 'H87', descripcion: 'Devolución: computadora portátil', valor_unitario: 15999 })],
    },
  ],
  [
    'Egreso: aplicación de anticipo (07, forma de pago 30)',
    {
      tipo: 'E',
      forma_pago: '30',
      receptor: G02,
      cfdi_relacionados: [{ tipo_relacion: '07', uuids: ['$2'] }],
      conceptos: [servicio({ clave_unidad: 'ACT', descripcion: 'Aplicación de anticipo', valor_unitario: '3000.00' })],
    },
  ],
  [
    'Egreso in USD with tipo de cambio',
    {
      tipo: 'E',
      forma_pago: '03',
      moneda: 'USD',
      tipo_cambio: '17.2345',
      receptor: G02,
      cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$2'] }],
      conceptos: [nota({ valor_unitario: '12.34' })],
    },
  ],
  [
    'Egreso with descuento, IEPS and IVA',
    {
      tipo: 'E',
      forma_pago: '03',
      receptor: G02,
      cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$3'] }],
      conceptos: [
        nota({
          clave_prod_serv: '50161800',
          clave_unidad: 'H87',
          descripcion: 'Bonificación sobre dulces',
          cantidad: 10,
          valor_unitario: '12.40',
          descuento: '4.00',
          impuestos: {
            traslados: [
              { impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' },
              { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' },
            ],
          },
        }),
      ],
    },
  ],
  [
    'Egreso with retenciones of ISR and IVA',
    {
      tipo: 'E',
      forma_pago: '03',
      receptor: G02,
      cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$1'] }],
      conceptos: [
        nota({
          valor_unitario: '500.00',
          impuestos: {
            traslados: iva16.traslados,
            retenciones: [
              { impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' },
              { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.106667' },
            ],
          },
        }),
      ],
    },
  ],
  [
    'Egreso with two relation types (01 and 03)',
    {
      tipo: 'E',
      forma_pago: '03',
      receptor: G02,
      cfdi_relacionados: [
        { tipo_relacion: '01', uuids: ['$1'] },
        { tipo_relacion: '03', uuids: ['$3'] },
      ],
      conceptos: [
        nota({ valor_unitario: '80.00' }),
        servicio({ clave_prod_serv: '43211503', clave_unidad: 'H87', descripcion: 'Devolución parcial', valor_unitario: '999.00' }),
      ],
    },
  ],
  [
    'Egreso for an unpaid PPD invoice (forma de pago 15, condonación)',
    {
      tipo: 'E',
      forma_pago: '15',
      receptor: G02,
      cfdi_relacionados: [{ tipo_relacion: '01', uuids: ['$4'] }],
      conceptos: [nota({ descripcion: 'Bonificación sobre factura a crédito', valor_unitario: '800.00' })],
    },
  ],
];

const CP01 = { ...ICV, uso_cfdi: 'CP01' };
const pago = (documentos: Record<string, unknown>[], over: Record<string, unknown> = {}) => ({
  fecha_pago: 'PAST',
  forma_pago: '03',
  moneda: 'MXN',
  documentos,
  ...over,
});

/** Pagos (P) with Complemento de Pagos 2.0, paying BASES 5–13 (`$n`) and one document issued elsewhere. */
export const PAGOS: [string, Record<string, unknown>][] = [
  [
    'Pago: one payment settles a PPD invoice, with bank data',
    {
      tipo: 'P',
      receptor: CP01,
      pagos: [
        pago([{ uuid: '$5', imp_pagado: '11600.00' }], {
          monto: '11600.00',
          num_operacion: 'SPEI 0042',
          rfc_emisor_cta_ord: 'BMI9704113PA',
          cta_ordenante: '002180700000000001',
          rfc_emisor_cta_ben: 'BBA830831LJ2',
          cta_beneficiario: '012180001234567897',
        }),
      ],
    },
  ],
  [
    'Pago: first instalment of an invoice with IVA and ISR/IVA retenciones',
    {
      tipo: 'P',
      receptor: CP01,
      pagos: [pago([{ uuid: '$6', imp_pagado: '10000.00' }], { monto: '10000.00' })],
    },
  ],
  [
    'Pago: one payment for two invoices (IVA exento; IEPS + IVA)',
    {
      tipo: 'P',
      receptor: CP01,
      pagos: [
        pago(
          [
            { uuid: '$7', imp_pagado: '4500.00' },
            { uuid: '$8', imp_pagado: '2000.00' },
          ],
          { monto: '6500.00', forma_pago: '02' },
        ),
      ],
    },
  ],
  [
    'Pago: two payments (cash and card) of the same invoice in one receipt (IVA 8 %)',
    {
      tipo: 'P',
      receptor: CP01,
      pagos: [
        pago([{ uuid: '$9', imp_pagado: '1000.00' }], { forma_pago: '01', monto: '1000.00' }),
        pago([{ uuid: '$9', imp_pagado: '2500.50' }], { forma_pago: '04', monto: '2500.50' }),
      ],
    },
  ],
  [
    'Pago: USD payment of an MXN invoice (EquivalenciaDR = TipoCambioP)',
    {
      tipo: 'P',
      receptor: CP01,
      pagos: [pago([{ uuid: '$10', imp_pagado: '1750.00' }], { moneda: 'USD', tipo_cambio: '17.50', monto: '100.00' })],
    },
  ],
  [
    'Pago: USD invoice paid in USD',
    {
      tipo: 'P',
      receptor: CP01,
      pagos: [pago([{ uuid: '$11', imp_pagado: '450.00' }], { moneda: 'USD', tipo_cambio: '17.3012', monto: '450.00' })],
    },
  ],
  [
    'Pago: MXN payment of a USD invoice (EquivalenciaDR sent)',
    {
      tipo: 'P',
      receptor: CP01,
      pagos: [pago([{ uuid: '$12', imp_pagado: '100.00', equivalencia: '0.0584795322' }], { monto: '1710.00' })],
    },
  ],
  [
    'Pago: invoice without taxes (ObjetoImpDR 01)',
    {
      tipo: 'P',
      receptor: CP01,
      pagos: [pago([{ uuid: '$13', imp_pagado: '6000.00' }], { monto: '6000.00' })],
    },
  ],
  [
    'Pago: a document issued elsewhere, with its data and taxes',
    {
      tipo: 'P',
      receptor: CP01,
      pagos: [
        pago(
          [
            {
              uuid: '6a1c43b6-4f7d-4c55-9c0e-2f1a7b3d9e10',
              serie: 'EXT',
              folio: '881',
              moneda: 'MXN',
              num_parcialidad: 2,
              imp_saldo_ant: '5800.00',
              imp_pagado: '2900.00',
              objeto_imp: '02',
              impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000', base: '2500.00', importe: '400.00' }] },
            },
          ],
          { monto: '2900.00' },
        ),
      ],
    },
  ],
];

const EKU_SELF = { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'S01' };
const mercancia = (over: Record<string, unknown> = {}) => ({
  clave_prod_serv: '43211503',
  clave_unidad: 'H87',
  descripcion: 'Computadora portátil',
  cantidad: 10,
  valor_unitario: 0,
  ...over,
});

/** Traslados (T): the issuer moving its own goods, or goods already invoiced (05). Carta Porte is out of scope. */
export const TRASLADOS: [string, Record<string, unknown>][] = [
  ['Traslado: own goods between branches, no value (XXX)', { tipo: 'T', receptor: EKU_SELF, conceptos: [mercancia()] }],
  [
    'Traslado: goods listed at their value, SubTotal and Total 0',
    {
      tipo: 'T',
      receptor: EKU_SELF,
      conceptos: [
        mercancia({ valor_unitario: '15999.00' }),
        mercancia({ clave_prod_serv: '43211708', descripcion: 'Teclado', cantidad: 25, valor_unitario: '349.90' }),
      ],
    },
  ],
  ['Traslado in MXN with zero amounts', { tipo: 'T', moneda: 'MXN', receptor: EKU_SELF, conceptos: [mercancia()] }],
  [
    'Traslado of invoiced goods (05)',
    { tipo: 'T', receptor: EKU_SELF, cfdi_relacionados: [{ tipo_relacion: '05', uuids: ['$3'] }], conceptos: [mercancia({ cantidad: 3 })] },
  ],
  [
    'Traslado with identifiers, units and many lines',
    {
      tipo: 'T',
      receptor: EKU_SELF,
      conceptos: Array.from({ length: 12 }, (_, i) =>
        mercancia({ no_identificacion: `SKU-${1000 + i}`, unidad: 'Pieza', descripcion: `Artículo ${i + 1}`, cantidad: i + 1 }),
      ),
    },
  ],
  [
    'Traslado to a third party (consignment)',
    { tipo: 'T', receptor: { ...ICV, uso_cfdi: 'S01' }, conceptos: [mercancia({ descripcion: 'Mercancía en consignación', valor_unitario: '1200.00' })] },
  ],
  [
    'Traslado of goods by weight (fractional quantity)',
    {
      tipo: 'T',
      receptor: EKU_SELF,
      conceptos: [mercancia({ clave_prod_serv: '50161800', clave_unidad: 'KGM', descripcion: 'Dulces a granel', cantidad: '125.375' })],
    },
  ],
  [
    'Traslado dated two hours ago, with a series',
    { tipo: 'T', fecha: 'PAST', receptor: EKU_SELF, conceptos: [mercancia({ descripcion: 'Equipo de laboratorio', cantidad: 2 })] },
  ],
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
    const pagos = body.pagos as { fecha_pago: string; documentos: { uuid?: string }[] }[] | undefined;
    if (pagos) {
      body.pagos = await Promise.all(
        pagos.map(async (p) => ({
          ...p,
          fecha_pago: p.fecha_pago === 'PAST' ? pastFecha() : p.fecha_pago,
          documentos: await Promise.all(p.documentos.map(async (d) => (d.uuid?.startsWith('$') ? { ...d, uuid: await base(Number(d.uuid.slice(1))) } : d))),
        })),
      );
    }
    return body;
  };
}

/** Deep-merges `over` into `base`: objects merge, arrays and scalars replace, undefined deletes. */
export function merged(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const prev = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev)
        ? merged(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
    if (v === undefined) delete out[k];
  }
  return out;
}

/** A quincenal ordinary payroll: sueldo, aguinaldo partly exempt, IMSS + ISR, subsidio caused but not paid, viáticos. */
export const QUINCENAL = {
  tipo_nomina: 'O',
  fecha_pago: '2026-04-30',
  fecha_inicial_pago: '2026-04-16',
  fecha_final_pago: '2026-04-30',
  num_dias_pagados: 15,
  emisor: { registro_patronal: 'B5510768108' },
  receptor: {
    curp: 'PEGJ800101HJCRRN09',
    nss: '04078873454',
    fecha_inicio_rel_laboral: '2024-11-01',
    tipo_contrato: '01',
    sindicalizado: false,
    tipo_jornada: '01',
    tipo_regimen: '02',
    num_empleado: '120',
    departamento: 'Almacén',
    puesto: 'Auxiliar',
    riesgo_puesto: '1',
    periodicidad_pago: '04',
    cuenta_bancaria: '032180000118359719',
    salario_base_cot_apor: '293.26',
    salario_diario_integrado: '293.26',
    clave_ent_fed: 'JAL',
  },
  percepciones: [
    { tipo_percepcion: '001', clave: 'P001', concepto: 'Sueldo', importe_gravado: '4200', importe_exento: 0 },
    { tipo_percepcion: '002', clave: 'P002', concepto: 'Aguinaldo', importe_gravado: '805.80', importe_exento: '3394.20' },
  ],
  deducciones: [
    { tipo_deduccion: '001', clave: 'D001', concepto: 'IMSS', importe: '105.62' },
    { tipo_deduccion: '002', clave: 'D002', concepto: 'ISR', importe: '412.37' },
  ],
  otros_pagos: [
    { tipo_otro_pago: '002', clave: 'OP002', concepto: 'Subsidio para el empleo', importe: '0', subsidio_causado: '237.24' },
    { tipo_otro_pago: '003', clave: 'OP003', concepto: 'Viáticos', importe: 350 },
  ],
};
const nominaVariant = (over: Record<string, unknown>) => merged(QUINCENAL, over);

/** The worker: a persona física, régimen 605, UsoCFDI CN01. */
export const TRABAJADOR = { rfc: 'PEGJ800101AB1', nombre: 'JUAN PEREZ GARCIA', regimen_fiscal: '605', domicilio_fiscal: '44100', uso_cfdi: 'CN01' };
const nominaRequest = (nomina: Record<string, unknown>, over: Record<string, unknown> = {}) => ({ tipo: 'N', receptor: TRABAJADOR, nomina, ...over });

/** Payroll variants as changes to QUINCENAL (shared with the engine's unit tests). */
export const PAYROLLS = {
  /** Extraordinaria, aguinaldo only. */
  extraordinaria: {
    tipo_nomina: 'E',
    fecha_pago: '2025-12-15',
    fecha_inicial_pago: '2025-12-15',
    fecha_final_pago: '2025-12-15',
    num_dias_pagados: 1,
    receptor: { periodicidad_pago: '99' },
    percepciones: [{ tipo_percepcion: '002', clave: 'P002', concepto: 'Aguinaldo', importe_gravado: '2805.80', importe_exento: '3394.20' }],
    deducciones: [{ tipo_deduccion: '002', clave: 'D002', concepto: 'ISR', importe: '301.15' }],
    otros_pagos: [{ tipo_otro_pago: '002', clave: 'OP002', concepto: 'Subsidio para el empleo', importe: 0, subsidio_causado: 0 }],
  },
  /** Separación e indemnización. */
  separacion: {
    percepciones: [
      { tipo_percepcion: '001', clave: 'P001', concepto: 'Sueldo', importe_gravado: '4200', importe_exento: 0 },
      { tipo_percepcion: '022', clave: 'P022', concepto: 'Prima de antigüedad', importe_gravado: '0', importe_exento: '3360.00' },
      { tipo_percepcion: '025', clave: 'P025', concepto: 'Indemnización', importe_gravado: '12000.00', importe_exento: '13200.50' },
    ],
    separacion_indemnizacion: {
      total_pagado: '28560.50',
      num_anios_servicio: 1,
      ultimo_sueldo_mens_ord: '8400.00',
      ingreso_acumulable: '8400.00',
      ingreso_no_acumulable: '3600.00',
    },
  },
  /** Jubilación en parcialidades (contrato 10, régimen 12). */
  jubilacion: {
    emisor: undefined,
    receptor: {
      tipo_contrato: '10',
      tipo_regimen: '12',
      nss: undefined,
      riesgo_puesto: undefined,
      salario_base_cot_apor: undefined,
      salario_diario_integrado: undefined,
      tipo_jornada: undefined,
    },
    percepciones: [{ tipo_percepcion: '044', clave: 'P044', concepto: 'Pensión', importe_gravado: '3000.00', importe_exento: '9000.00' }],
    jubilacion_pension_retiro: { total_parcialidad: '12000.00', monto_diario: '800.00', ingreso_acumulable: '3000.00', ingreso_no_acumulable: '9000.00' },
    deducciones: [{ tipo_deduccion: '002', clave: 'D002', concepto: 'ISR', importe: '150.00' }],
    otros_pagos: undefined,
  },
  /** Asimilados (contrato 09, régimen 09), acciones o títulos, SNCF ingresos mixtos. */
  asimilados: {
    emisor: { registro_patronal: undefined, entidad_sncf: { origen_recurso: 'IM', monto_recurso_propio: '1000.00' } },
    receptor: {
      tipo_contrato: '09',
      tipo_regimen: '09',
      nss: undefined,
      fecha_inicio_rel_laboral: undefined,
      riesgo_puesto: undefined,
      periodicidad_pago: '05',
    },
    fecha_inicial_pago: '2026-04-01',
    num_dias_pagados: '30.5',
    percepciones: [
      { tipo_percepcion: '046', clave: 'P046', concepto: 'Honorarios asimilados', importe_gravado: '20000', importe_exento: 0 },
      {
        tipo_percepcion: '045',
        clave: 'P045',
        concepto: 'Acciones',
        importe_gravado: '1500',
        importe_exento: 0,
        acciones_o_titulos: { valor_mercado: '125.123456', precio_al_otorgarse: '100' },
      },
    ],
    otros_pagos: undefined,
  },
  /** Horas extra, incapacidad, subcontratación, saldo a favor, card account. */
  horasExtra: {
    receptor: {
      cuenta_bancaria: '4152313412341234',
      banco: '012',
      sindicalizado: true,
      subcontratacion: [
        { rfc_labora: 'ICV060329BY0', porcentaje_tiempo: '60.5' },
        { rfc_labora: 'AAA010101AAA', porcentaje_tiempo: 39.5 },
      ],
    },
    percepciones: [
      { tipo_percepcion: '001', clave: 'P001', concepto: 'Sueldo', importe_gravado: '3640', importe_exento: 0 },
      {
        tipo_percepcion: '019',
        clave: 'P019',
        concepto: 'Horas extra',
        importe_gravado: '280.00',
        importe_exento: '280.00',
        horas_extra: [{ dias: 2, tipo_horas: '01', horas_extra: 4, importe_pagado: '560.00' }],
      },
    ],
    deducciones: [
      { tipo_deduccion: '002', clave: 'D002', concepto: 'ISR', importe: '350.10' },
      { tipo_deduccion: '006', clave: 'D006', concepto: 'Descuento por incapacidad', importe: '560.00' },
    ],
    otros_pagos: [
      { tipo_otro_pago: '002', clave: 'OP002', concepto: 'Subsidio para el empleo', importe: 0, subsidio_causado: '120.00' },
      {
        tipo_otro_pago: '004',
        clave: 'OP004',
        concepto: 'Saldo a favor',
        importe: '500.00',
        compensacion_saldos_a_favor: { saldo_a_favor: '1500.00', anio: 2025, remanente_sal_fav: '1000.00' },
      },
    ],
    incapacidades: [{ dias_incapacidad: 2, tipo_incapacidad: '02', importe_monetario: '560.00' }],
  },
} satisfies Record<string, Record<string, unknown>>;

/** Nóminas (N) with Complemento de Nómina 1.2, issued by the persona moral EKU9003173C9. */
export const NOMINAS: [string, Record<string, unknown>][] = [
  ['Nómina: quincenal ordinaria (sueldo, aguinaldo, IMSS, ISR, subsidio causado, viáticos)', nominaRequest(QUINCENAL)],
  ['Nómina: no deducciones (no Descuento)', nominaRequest(nominaVariant({ deducciones: undefined }))],
  ['Nómina: extraordinaria, aguinaldo only', nominaRequest(nominaVariant(PAYROLLS.extraordinaria))],
  ['Nómina: separación e indemnización', nominaRequest(nominaVariant(PAYROLLS.separacion))],
  ['Nómina: jubilación en parcialidades (contrato 10, régimen 12)', nominaRequest(nominaVariant(PAYROLLS.jubilacion))],
  ['Nómina: asimilados (contrato 09, régimen 09), acciones o títulos, SNCF ingresos mixtos', nominaRequest(nominaVariant(PAYROLLS.asimilados))],
  ['Nómina: horas extra, incapacidad, subcontratación, saldo a favor, card account', nominaRequest(nominaVariant(PAYROLLS.horasExtra))],
  [
    'Nómina: semanal with subsidio paid, in a series',
    nominaRequest(
      nominaVariant({
        fecha_inicial_pago: '2026-04-24',
        num_dias_pagados: 7,
        receptor: { periodicidad_pago: '02', salario_diario_integrado: '278.80', salario_base_cot_apor: '278.80' },
        percepciones: [{ tipo_percepcion: '001', clave: 'P001', concepto: 'Sueldo semanal', importe_gravado: '1951.60', importe_exento: 0 }],
        deducciones: [{ tipo_deduccion: '001', clave: 'D001', concepto: 'IMSS', importe: '48.79' }],
        otros_pagos: [{ tipo_otro_pago: '002', clave: 'OP002', concepto: 'Subsidio para el empleo', importe: '15.12', subsidio_causado: '15.12' }],
      }),
    ),
  ],
];
