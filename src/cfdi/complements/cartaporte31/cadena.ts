import { attrs, each, O, R, type Step } from '../../cadena-steps.ts';

/** CartaPorte31.xslt: the Domicilio of a Ubicacion and of a TiposFigura are written by the same steps. */
const DOMICILIO_CP = attrs('', 'Calle NumeroExterior NumeroInterior Colonia Localidad Referencia Municipio').concat(attrs('Estado Pais CodigoPostal'));
export const CARTA_PORTE_31: Step[] = [
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
