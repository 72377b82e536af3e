import { childrenNamed, type XmlNode } from './xml.ts';

/**
 * The cadena original, as SAT's cadenaoriginal_4_0.xslt builds it: `|` + required and present optional
 * attribute values (normalize-space'd) in the stylesheet's fixed order, `||` at the end. The tests compare this
 * with the XSLT's own output byte for byte.
 */
export type Step =
  | { attr: string; required: boolean }
  | { each: string[]; steps: Step[] } // for-each over a child path
  | { complements: true }; // apply the complement templates to each child

const R = (attr: string): Step => ({ attr, required: true });
const O = (attr: string): Step => ({ attr, required: false });
export const each = (path: string, steps: Step[]): Step => ({ each: path.split('/'), steps });

const TRASLADO = [R('Base'), R('Impuesto'), R('TipoFactor'), O('TasaOCuota'), O('Importe')];
const RETENCION = [R('Base'), R('Impuesto'), R('TipoFactor'), R('TasaOCuota'), R('Importe')];
const PARTE = [
  R('ClaveProdServ'),
  O('NoIdentificacion'),
  R('Cantidad'),
  O('Unidad'),
  R('Descripcion'),
  O('ValorUnitario'),
  O('Importe'),
  each('cfdi:InformacionAduanera', [R('NumeroPedimento')]),
];

const CONCEPTO: Step[] = [
  R('ClaveProdServ'),
  O('NoIdentificacion'),
  R('Cantidad'),
  R('ClaveUnidad'),
  O('Unidad'),
  R('Descripcion'),
  R('ValorUnitario'),
  R('Importe'),
  O('Descuento'),
  R('ObjetoImp'),
  each('cfdi:Impuestos/cfdi:Traslados/cfdi:Traslado', TRASLADO),
  each('cfdi:Impuestos/cfdi:Retenciones/cfdi:Retencion', RETENCION),
  each('cfdi:ACuentaTerceros', [R('RfcACuentaTerceros'), R('NombreACuentaTerceros'), R('RegimenFiscalACuentaTerceros'), R('DomicilioFiscalACuentaTerceros')]),
  each('cfdi:InformacionAduanera', [R('NumeroPedimento')]),
  each('cfdi:CuentaPredial', [R('Numero')]),
  each('cfdi:Parte', PARTE),
];

const COMPROBANTE_40: Step[] = [
  R('Version'),
  O('Serie'),
  O('Folio'),
  R('Fecha'),
  O('FormaPago'),
  R('NoCertificado'),
  O('CondicionesDePago'),
  R('SubTotal'),
  O('Descuento'),
  R('Moneda'),
  O('TipoCambio'),
  R('Total'),
  R('TipoDeComprobante'),
  R('Exportacion'),
  O('MetodoPago'),
  R('LugarExpedicion'),
  O('Confirmacion'),
  each('cfdi:InformacionGlobal', [R('Periodicidad'), R('Meses'), R('Año')]),
  each('cfdi:CfdiRelacionados', [R('TipoRelacion'), each('cfdi:CfdiRelacionado', [R('UUID')])]),
  each('cfdi:Emisor', [R('Rfc'), R('Nombre'), R('RegimenFiscal'), O('FacAtrAdquirente')]),
  each('cfdi:Receptor', [
    R('Rfc'),
    R('Nombre'),
    R('DomicilioFiscalReceptor'),
    O('ResidenciaFiscal'),
    O('NumRegIdTrib'),
    R('RegimenFiscalReceptor'),
    R('UsoCFDI'),
  ]),
  each('cfdi:Conceptos/cfdi:Concepto', CONCEPTO),
  each('cfdi:Impuestos', [
    each('cfdi:Retenciones/cfdi:Retencion', [R('Impuesto'), R('Importe')]),
    O('TotalImpuestosRetenidos'),
    each('cfdi:Traslados/cfdi:Traslado', TRASLADO),
    O('TotalImpuestosTrasladados'),
  ]),
  each('cfdi:Complemento', [{ complements: true }]),
];

export const attrs = (required: string, optional = '') => [...required.split(' ').filter(Boolean).map(R), ...optional.split(' ').filter(Boolean).map(O)];

/** Pagos20.xslt. */
const TRASLADO_DR = [R('BaseDR'), R('ImpuestoDR'), R('TipoFactorDR'), O('TasaOCuotaDR'), O('ImporteDR')];
const PAGOS_20: Step[] = [
  R('Version'),
  each('pago20:Totales', [
    O('TotalRetencionesIVA'),
    O('TotalRetencionesISR'),
    O('TotalRetencionesIEPS'),
    O('TotalTrasladosBaseIVA16'),
    O('TotalTrasladosImpuestoIVA16'),
    O('TotalTrasladosBaseIVA8'),
    O('TotalTrasladosImpuestoIVA8'),
    O('TotalTrasladosBaseIVA0'),
    O('TotalTrasladosImpuestoIVA0'),
    O('TotalTrasladosBaseIVAExento'),
    R('MontoTotalPagos'),
  ]),
  each('pago20:Pago', [
    R('FechaPago'),
    R('FormaDePagoP'),
    R('MonedaP'),
    O('TipoCambioP'),
    R('Monto'),
    O('NumOperacion'),
    O('RfcEmisorCtaOrd'),
    O('NomBancoOrdExt'),
    O('CtaOrdenante'),
    O('RfcEmisorCtaBen'),
    O('CtaBeneficiario'),
    O('TipoCadPago'),
    O('CertPago'),
    O('CadPago'),
    O('SelloPago'),
    each('pago20:DoctoRelacionado', [
      R('IdDocumento'),
      O('Serie'),
      O('Folio'),
      R('MonedaDR'),
      O('EquivalenciaDR'),
      R('NumParcialidad'),
      R('ImpSaldoAnt'),
      R('ImpPagado'),
      R('ImpSaldoInsoluto'),
      R('ObjetoImpDR'),
      each('pago20:ImpuestosDR/pago20:RetencionesDR/pago20:RetencionDR', [R('BaseDR'), R('ImpuestoDR'), R('TipoFactorDR'), R('TasaOCuotaDR'), R('ImporteDR')]),
      each('pago20:ImpuestosDR/pago20:TrasladosDR/pago20:TrasladoDR', TRASLADO_DR),
    ]),
    each('pago20:ImpuestosP', [
      each('pago20:RetencionesP/pago20:RetencionP', [R('ImpuestoP'), R('ImporteP')]),
      each('pago20:TrasladosP/pago20:TrasladoP', [R('BaseP'), R('ImpuestoP'), R('TipoFactorP'), O('TasaOCuotaP'), O('ImporteP')]),
    ]),
  ]),
];

/** nomina12.xslt. */
const NOMINA_12: Step[] = [
  ...attrs('Version TipoNomina FechaPago FechaInicialPago FechaFinalPago NumDiasPagados', 'TotalPercepciones TotalDeducciones TotalOtrosPagos'),
  each('nomina12:Emisor', [...attrs('', 'Curp RegistroPatronal RfcPatronOrigen'), each('nomina12:EntidadSNCF', attrs('OrigenRecurso', 'MontoRecursoPropio'))]),
  each('nomina12:Receptor', [
    R('Curp'),
    O('NumSeguridadSocial'),
    O('FechaInicioRelLaboral'),
    O('Antigüedad'),
    R('TipoContrato'),
    O('Sindicalizado'),
    O('TipoJornada'),
    R('TipoRegimen'),
    R('NumEmpleado'),
    O('Departamento'),
    O('Puesto'),
    O('RiesgoPuesto'),
    R('PeriodicidadPago'),
    O('Banco'),
    O('CuentaBancaria'),
    O('SalarioBaseCotApor'),
    O('SalarioDiarioIntegrado'),
    R('ClaveEntFed'),
    each('nomina12:SubContratacion', attrs('RfcLabora PorcentajeTiempo')),
  ]),
  each('nomina12:Percepciones', [
    ...attrs('', 'TotalSueldos TotalSeparacionIndemnizacion TotalJubilacionPensionRetiro'),
    R('TotalGravado'),
    R('TotalExento'),
    each('nomina12:Percepcion', [
      ...attrs('TipoPercepcion Clave Concepto ImporteGravado ImporteExento'),
      each('nomina12:AccionesOTitulos', attrs('ValorMercado PrecioAlOtorgarse')),
      each('nomina12:HorasExtra', attrs('Dias TipoHoras HorasExtra ImportePagado')),
    ]),
    each('nomina12:JubilacionPensionRetiro', [
      ...attrs('', 'TotalUnaExhibicion TotalParcialidad MontoDiario'),
      ...attrs('IngresoAcumulable IngresoNoAcumulable'),
    ]),
    each('nomina12:SeparacionIndemnizacion', attrs('TotalPagado NumAñosServicio UltimoSueldoMensOrd IngresoAcumulable IngresoNoAcumulable')),
  ]),
  each('nomina12:Deducciones', [
    ...attrs('', 'TotalOtrasDeducciones TotalImpuestosRetenidos'),
    each('nomina12:Deduccion', attrs('TipoDeduccion Clave Concepto Importe')),
  ]),
  each('nomina12:OtrosPagos/nomina12:OtroPago', [
    ...attrs('TipoOtroPago Clave Concepto Importe'),
    each('nomina12:SubsidioAlEmpleo', attrs('SubsidioCausado')),
    each('nomina12:CompensacionSaldosAFavor', attrs('SaldoAFavor Año RemanenteSalFav')),
  ]),
  each('nomina12:Incapacidades/nomina12:Incapacidad', attrs('DiasIncapacidad TipoIncapacidad', 'ImporteMonetario')),
];

/** CartaPorte31.xslt: the Domicilio of a Ubicacion and of a TiposFigura are written by the same steps. */
const DOMICILIO_CP = attrs('', 'Calle NumeroExterior NumeroInterior Colonia Localidad Referencia Municipio').concat(attrs('Estado Pais CodigoPostal'));
const CARTA_PORTE_31: Step[] = [
  ...attrs(
    'Version IdCCP TranspInternac',
    'EntradaSalidaMerc PaisOrigenDestino ViaEntradaSalida TotalDistRec RegistroISTMO UbicacionPoloOrigen UbicacionPoloDestino',
  ),
  each('cartaporte31:RegimenesAduaneros/cartaporte31:RegimenAduaneroCCP', attrs('RegimenAduanero')),
  each('cartaporte31:Ubicaciones/cartaporte31:Ubicacion', [
    R('TipoUbicacion'),
    O('IDUbicacion'),
    R('RFCRemitenteDestinatario'),
    ...attrs('', 'NombreRemitenteDestinatario NumRegIdTrib ResidenciaFiscal NumEstacion NombreEstacion NavegacionTrafico'),
    R('FechaHoraSalidaLlegada'),
    ...attrs('', 'TipoEstacion DistanciaRecorrida'),
    each('cartaporte31:Domicilio', DOMICILIO_CP),
  ]),
  each('cartaporte31:Mercancias', [
    R('PesoBrutoTotal'),
    R('UnidadPeso'),
    O('PesoNetoTotal'),
    R('NumTotalMercancias'),
    ...attrs('', 'CargoPorTasacion LogisticaInversaRecoleccionDevolucion'),
    each('cartaporte31:Mercancia', [
      R('BienesTransp'),
      O('ClaveSTCC'),
      ...attrs('Descripcion Cantidad ClaveUnidad'),
      ...attrs(
        '',
        'Unidad Dimensiones MaterialPeligroso CveMaterialPeligroso Embalaje DescripEmbalaje SectorCOFEPRIS NombreIngredienteActivo NomQuimico ' +
          'DenominacionGenericaProd DenominacionDistintivaProd Fabricante FechaCaducidad LoteMedicamento FormaFarmaceutica CondicionesEspTransp ' +
          'RegistroSanitarioFolioAutorizacion PermisoImportacion FolioImpoVUCEM NumCAS RazonSocialEmpImp NumRegSanPlagCOFEPRIS DatosFabricante ' +
          'DatosFormulador DatosMaquilador UsoAutorizado',
      ),
      R('PesoEnKg'),
      ...attrs('', 'ValorMercancia Moneda FraccionArancelaria UUIDComercioExt TipoMateria DescripcionMateria'),
      each('cartaporte31:DocumentacionAduanera', attrs('TipoDocumento', 'NumPedimento IdentDocAduanero RFCImpo')),
      each('cartaporte31:GuiasIdentificacion', attrs('NumeroGuiaIdentificacion DescripGuiaIdentificacion PesoGuiaIdentificacion')),
      each('cartaporte31:CantidadTransporta', attrs('Cantidad IDOrigen IDDestino', 'CvesTransporte')),
      each('cartaporte31:DetalleMercancia', attrs('UnidadPesoMerc PesoBruto PesoNeto PesoTara', 'NumPiezas')),
    ]),
    each('cartaporte31:Autotransporte', [
      ...attrs('PermSCT NumPermisoSCT'),
      each('cartaporte31:IdentificacionVehicular', attrs('ConfigVehicular PesoBrutoVehicular PlacaVM AnioModeloVM')),
      each('cartaporte31:Seguros', attrs('AseguraRespCivil PolizaRespCivil', 'AseguraMedAmbiente PolizaMedAmbiente AseguraCarga PolizaCarga PrimaSeguro')),
      each('cartaporte31:Remolques/cartaporte31:Remolque', attrs('SubTipoRem Placa')),
    ]),
    each('cartaporte31:TransporteMaritimo', [
      ...attrs('', 'PermSCT NumPermisoSCT NombreAseg NumPolizaSeguro'),
      ...attrs('TipoEmbarcacion Matricula NumeroOMI'),
      ...attrs('', 'AnioEmbarcacion NombreEmbarc'),
      ...attrs('NacionalidadEmbarc UnidadesDeArqBruto TipoCarga'),
      ...attrs('', 'Eslora Manga Calado Puntal LineaNaviera'),
      ...attrs('NombreAgenteNaviero NumAutorizacionNaviero'),
      ...attrs('', 'NumViaje NumConocEmbarc PermisoTempNavegacion'),
      each('cartaporte31:Contenedor', [
        ...attrs('TipoContenedor', 'MatriculaContenedor NumPrecinto IdCCPRelacionado PlacaVMCCP FechaCertificacionCCP'),
        each('cartaporte31:RemolquesCCP/cartaporte31:RemolqueCCP', attrs('SubTipoRemCCP PlacaCCP')),
      ]),
    ]),
    each('cartaporte31:TransporteAereo', [
      ...attrs('PermSCT NumPermisoSCT', 'MatriculaAeronave NombreAseg NumPolizaSeguro'),
      R('NumeroGuia'),
      O('LugarContrato'),
      R('CodigoTransportista'),
      ...attrs('', 'RFCEmbarcador NumRegIdTribEmbarc ResidenciaFiscalEmbarc NombreEmbarcador'),
    ]),
    each('cartaporte31:TransporteFerroviario', [
      ...attrs('TipoDeServicio TipoDeTrafico', 'NombreAseg NumPolizaSeguro'),
      each('cartaporte31:DerechosDePaso', attrs('TipoDerechoDePaso KilometrajePagado')),
      each('cartaporte31:Carro', [
        ...attrs('TipoCarro MatriculaCarro GuiaCarro ToneladasNetasCarro'),
        each('cartaporte31:Contenedor', attrs('TipoContenedor PesoContenedorVacio PesoNetoMercancia')),
      ]),
    ]),
  ]),
  each('cartaporte31:FiguraTransporte/cartaporte31:TiposFigura', [
    R('TipoFigura'),
    ...attrs('', 'RFCFigura NumLicencia'),
    R('NombreFigura'),
    ...attrs('', 'NumRegIdTribFigura ResidenciaFiscalFigura'),
    each('cartaporte31:PartesTransporte', attrs('ParteTransporte')),
    each('cartaporte31:Domicilio', DOMICILIO_CP),
  ]),
];

/** Complement templates by element name, as cadenaoriginal_4_0.xslt includes them (the ones this service issues). */
const COMPLEMENT_STEPS: Record<string, Step[]> = { 'pago20:Pagos': PAGOS_20, 'nomina12:Nomina': NOMINA_12, 'cartaporte31:CartaPorte': CARTA_PORTE_31 };

/** XPath normalize-space(): trim and collapse runs of space, tab, CR, LF. */
export const normalizeSpace = (s: string) => s.replace(/[ \t\r\n]+/g, ' ').trim();

export function run(node: XmlNode, steps: Step[], out: string[]): void {
  for (const step of steps) {
    if ('attr' in step) {
      const v = node.attrs[step.attr];
      // XSLT "Opcional" tests the attribute's string value: absent and empty are both skipped.
      if (step.required || (v !== undefined && v !== '')) out.push('|', normalizeSpace(v ?? ''));
    } else if ('each' in step) {
      let nodes = [node];
      for (const name of step.each) nodes = nodes.flatMap((n) => childrenNamed(n, name));
      for (const n of nodes) run(n, step.steps, out);
    } else {
      for (const c of node.children) {
        const complement = COMPLEMENT_STEPS[c.name];
        // Elements without a template (the TFD) contribute nothing: they carry no text.
        if (complement) run(c, complement, out);
      }
    }
  }
}

export function cadenaOriginal(comprobante: XmlNode): string {
  const out: string[] = ['|'];
  run(comprobante, COMPROBANTE_40, out);
  out.push('||');
  return out.join('');
}
