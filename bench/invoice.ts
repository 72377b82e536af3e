/** The benchmark invoice: 10 conceptos with IVA 16 % and varied prices, for the EKU9003173C9 test tenant. */
export const INVOICE = {
  tipo: 'I',
  forma_pago: '03',
  receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' },
  conceptos: Array.from({ length: 10 }, (_, i) => ({
    clave_prod_serv: '84111506',
    clave_unidad: 'E48',
    no_identificacion: `SKU-${i + 1}`,
    descripcion: `Servicio de consultoría, partida ${i + 1}`,
    cantidad: (i % 4) + 1,
    valor_unitario: ((i + 1) * 137.49 + 0.37).toFixed(2),
    impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
  })),
};
