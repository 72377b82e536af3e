import type { Dec } from '../../decimal.ts';
import { el, type XmlNode } from '../../xml.ts';
import { domicilioNode as domicilioNodeOf } from '../domicilio.ts';
import type { CartaPorteModel, DomicilioModel, MercanciaModel, TipoFiguraModel, UbicacionModel } from './model.ts';

const w = (d: Dec | undefined) => d?.toString();
const n = (v: number | undefined) => (v === undefined ? undefined : String(v));

const domicilioNode = (d: DomicilioModel | undefined) => d && domicilioNodeOf('cartaporte31:Domicilio', d);

const ubicacionNode = (u: UbicacionModel) =>
  el(
    'cartaporte31:Ubicacion',
    {
      TipoUbicacion: u.tipoUbicacion,
      IDUbicacion: u.idUbicacion,
      RFCRemitenteDestinatario: u.rfcRemitenteDestinatario,
      NombreRemitenteDestinatario: u.nombreRemitenteDestinatario,
      NumRegIdTrib: u.numRegIdTrib,
      ResidenciaFiscal: u.residenciaFiscal,
      NumEstacion: u.numEstacion,
      NombreEstacion: u.nombreEstacion,
      NavegacionTrafico: u.navegacionTrafico,
      FechaHoraSalidaLlegada: u.fechaHoraSalidaLlegada,
      TipoEstacion: u.tipoEstacion,
      DistanciaRecorrida: w(u.distanciaRecorrida),
    },
    [domicilioNode(u.domicilio)],
  );

const mercanciaNode = (m: MercanciaModel) =>
  el(
    'cartaporte31:Mercancia',
    {
      BienesTransp: m.bienesTransp,
      ClaveSTCC: m.claveStcc,
      Descripcion: m.descripcion,
      Cantidad: m.cantidad.toString(),
      ClaveUnidad: m.claveUnidad,
      Unidad: m.unidad,
      Dimensiones: m.dimensiones,
      MaterialPeligroso: m.materialPeligroso,
      CveMaterialPeligroso: m.cveMaterialPeligroso,
      Embalaje: m.embalaje,
      DescripEmbalaje: m.descripEmbalaje,
      SectorCOFEPRIS: m.sectorCofepris,
      NombreIngredienteActivo: m.nombreIngredienteActivo,
      NomQuimico: m.nomQuimico,
      DenominacionGenericaProd: m.denominacionGenericaProd,
      DenominacionDistintivaProd: m.denominacionDistintivaProd,
      Fabricante: m.fabricante,
      FechaCaducidad: m.fechaCaducidad,
      LoteMedicamento: m.loteMedicamento,
      FormaFarmaceutica: m.formaFarmaceutica,
      CondicionesEspTransp: m.condicionesEspTransp,
      RegistroSanitarioFolioAutorizacion: m.registroSanitarioFolioAutorizacion,
      PermisoImportacion: m.permisoImportacion,
      FolioImpoVUCEM: m.folioImpoVucem,
      NumCAS: m.numCas,
      RazonSocialEmpImp: m.razonSocialEmpImp,
      NumRegSanPlagCOFEPRIS: m.numRegSanPlagCofepris,
      DatosFabricante: m.datosFabricante,
      DatosFormulador: m.datosFormulador,
      DatosMaquilador: m.datosMaquilador,
      UsoAutorizado: m.usoAutorizado,
      PesoEnKg: m.pesoEnKg.toString(),
      ValorMercancia: w(m.valorMercancia),
      Moneda: m.moneda,
      FraccionArancelaria: m.fraccionArancelaria,
      UUIDComercioExt: m.uuidComercioExt,
      TipoMateria: m.tipoMateria,
      DescripcionMateria: m.descripcionMateria,
    },
    [
      ...m.documentacionAduanera.map((d) =>
        el('cartaporte31:DocumentacionAduanera', {
          TipoDocumento: d.tipoDocumento,
          NumPedimento: d.numPedimento,
          IdentDocAduanero: d.identDocAduanero,
          RFCImpo: d.rfcImpo,
        }),
      ),
      ...m.guiasIdentificacion.map((g) =>
        el('cartaporte31:GuiasIdentificacion', {
          NumeroGuiaIdentificacion: g.numeroGuiaIdentificacion,
          DescripGuiaIdentificacion: g.descripGuiaIdentificacion,
          PesoGuiaIdentificacion: g.pesoGuiaIdentificacion.toString(),
        }),
      ),
      ...m.cantidadTransporta.map((c) =>
        el('cartaporte31:CantidadTransporta', {
          Cantidad: c.cantidad.toString(),
          IDOrigen: c.idOrigen,
          IDDestino: c.idDestino,
          CvesTransporte: c.cvesTransporte,
        }),
      ),
      m.detalleMercancia &&
        el('cartaporte31:DetalleMercancia', {
          UnidadPesoMerc: m.detalleMercancia.unidadPesoMerc,
          PesoBruto: m.detalleMercancia.pesoBruto.toString(),
          PesoNeto: m.detalleMercancia.pesoNeto.toString(),
          PesoTara: m.detalleMercancia.pesoTara.toString(),
          NumPiezas: n(m.detalleMercancia.numPiezas),
        }),
    ],
  );

const figuraNode = (f: TipoFiguraModel) =>
  el(
    'cartaporte31:TiposFigura',
    {
      TipoFigura: f.tipoFigura,
      RFCFigura: f.rfcFigura,
      NumLicencia: f.numLicencia,
      NombreFigura: f.nombreFigura,
      NumRegIdTribFigura: f.numRegIdTribFigura,
      ResidenciaFiscalFigura: f.residenciaFiscalFigura,
    },
    [...f.partesTransporte.map((p) => el('cartaporte31:PartesTransporte', { ParteTransporte: p })), domicilioNode(f.domicilio)],
  );

/** The `cartaporte31:CartaPorte` element, attributes and children in CartaPorte31.xsd order. No xmlns: the root declares it. */
export function cartaPorteNode(m: CartaPorteModel): XmlNode {
  const { autotransporte: auto, transporteMaritimo: mar, transporteAereo: aereo, transporteFerroviario: fer } = m.mercancias;
  return el(
    'cartaporte31:CartaPorte',
    {
      Version: '3.1',
      IdCCP: m.idCcp,
      TranspInternac: m.transpInternac,
      EntradaSalidaMerc: m.entradaSalidaMerc,
      PaisOrigenDestino: m.paisOrigenDestino,
      ViaEntradaSalida: m.viaEntradaSalida,
      TotalDistRec: w(m.totalDistRec),
      RegistroISTMO: m.registroIstmo,
      UbicacionPoloOrigen: m.ubicacionPoloOrigen,
      UbicacionPoloDestino: m.ubicacionPoloDestino,
    },
    [
      m.regimenesAduaneros.length > 0 &&
        el(
          'cartaporte31:RegimenesAduaneros',
          {},
          m.regimenesAduaneros.map((r) => el('cartaporte31:RegimenAduaneroCCP', { RegimenAduanero: r })),
        ),
      el('cartaporte31:Ubicaciones', {}, m.ubicaciones.map(ubicacionNode)),
      el(
        'cartaporte31:Mercancias',
        {
          PesoBrutoTotal: m.mercancias.pesoBrutoTotal.toString(),
          UnidadPeso: m.mercancias.unidadPeso,
          PesoNetoTotal: w(m.mercancias.pesoNetoTotal),
          NumTotalMercancias: String(m.mercancias.numTotalMercancias),
          CargoPorTasacion: w(m.mercancias.cargoPorTasacion),
          LogisticaInversaRecoleccionDevolucion: m.mercancias.logisticaInversaRecoleccionDevolucion,
        },
        [
          ...m.mercancias.items.map(mercanciaNode),
          auto &&
            el('cartaporte31:Autotransporte', { PermSCT: auto.permSct, NumPermisoSCT: auto.numPermisoSct }, [
              el('cartaporte31:IdentificacionVehicular', {
                ConfigVehicular: auto.identificacionVehicular.configVehicular,
                PesoBrutoVehicular: auto.identificacionVehicular.pesoBrutoVehicular.toString(),
                PlacaVM: auto.identificacionVehicular.placaVm,
                AnioModeloVM: String(auto.identificacionVehicular.anioModeloVm),
              }),
              el('cartaporte31:Seguros', {
                AseguraRespCivil: auto.seguros.aseguraRespCivil,
                PolizaRespCivil: auto.seguros.polizaRespCivil,
                AseguraMedAmbiente: auto.seguros.aseguraMedAmbiente,
                PolizaMedAmbiente: auto.seguros.polizaMedAmbiente,
                AseguraCarga: auto.seguros.aseguraCarga,
                PolizaCarga: auto.seguros.polizaCarga,
                PrimaSeguro: w(auto.seguros.primaSeguro),
              }),
              auto.remolques.length > 0 &&
                el(
                  'cartaporte31:Remolques',
                  {},
                  auto.remolques.map((r) => el('cartaporte31:Remolque', { SubTipoRem: r.subTipoRem, Placa: r.placa })),
                ),
            ]),
          mar &&
            el(
              'cartaporte31:TransporteMaritimo',
              {
                PermSCT: mar.permSct,
                NumPermisoSCT: mar.numPermisoSct,
                NombreAseg: mar.nombreAseg,
                NumPolizaSeguro: mar.numPolizaSeguro,
                TipoEmbarcacion: mar.tipoEmbarcacion,
                Matricula: mar.matricula,
                NumeroOMI: mar.numeroOmi,
                AnioEmbarcacion: n(mar.anioEmbarcacion),
                NombreEmbarc: mar.nombreEmbarc,
                NacionalidadEmbarc: mar.nacionalidadEmbarc,
                UnidadesDeArqBruto: mar.unidadesDeArqBruto.toString(),
                TipoCarga: mar.tipoCarga,
                Eslora: w(mar.eslora),
                Manga: w(mar.manga),
                Calado: w(mar.calado),
                Puntal: w(mar.puntal),
                LineaNaviera: mar.lineaNaviera,
                NombreAgenteNaviero: mar.nombreAgenteNaviero,
                NumAutorizacionNaviero: mar.numAutorizacionNaviero,
                NumViaje: mar.numViaje,
                NumConocEmbarc: mar.numConocEmbarc,
                PermisoTempNavegacion: mar.permisoTempNavegacion,
              },
              mar.contenedores.map((c) =>
                el(
                  'cartaporte31:Contenedor',
                  {
                    TipoContenedor: c.tipoContenedor,
                    MatriculaContenedor: c.matriculaContenedor,
                    NumPrecinto: c.numPrecinto,
                    IdCCPRelacionado: c.idCcpRelacionado,
                    PlacaVMCCP: c.placaVmCcp,
                    FechaCertificacionCCP: c.fechaCertificacionCcp,
                  },
                  [
                    c.remolquesCcp.length > 0 &&
                      el(
                        'cartaporte31:RemolquesCCP',
                        {},
                        c.remolquesCcp.map((r) => el('cartaporte31:RemolqueCCP', { SubTipoRemCCP: r.subTipoRemCcp, PlacaCCP: r.placaCcp })),
                      ),
                  ],
                ),
              ),
            ),
          aereo &&
            el('cartaporte31:TransporteAereo', {
              PermSCT: aereo.permSct,
              NumPermisoSCT: aereo.numPermisoSct,
              MatriculaAeronave: aereo.matriculaAeronave,
              NombreAseg: aereo.nombreAseg,
              NumPolizaSeguro: aereo.numPolizaSeguro,
              NumeroGuia: aereo.numeroGuia,
              LugarContrato: aereo.lugarContrato,
              CodigoTransportista: aereo.codigoTransportista,
              RFCEmbarcador: aereo.rfcEmbarcador,
              NumRegIdTribEmbarc: aereo.numRegIdTribEmbarc,
              ResidenciaFiscalEmbarc: aereo.residenciaFiscalEmbarc,
              NombreEmbarcador: aereo.nombreEmbarcador,
            }),
          fer &&
            el(
              'cartaporte31:TransporteFerroviario',
              { TipoDeServicio: fer.tipoDeServicio, TipoDeTrafico: fer.tipoDeTrafico, NombreAseg: fer.nombreAseg, NumPolizaSeguro: fer.numPolizaSeguro },
              [
                ...fer.derechosDePaso.map((d) =>
                  el('cartaporte31:DerechosDePaso', { TipoDerechoDePaso: d.tipoDerechoDePaso, KilometrajePagado: d.kilometrajePagado.toString() }),
                ),
                ...fer.carros.map((c) =>
                  el(
                    'cartaporte31:Carro',
                    {
                      TipoCarro: c.tipoCarro,
                      MatriculaCarro: c.matriculaCarro,
                      GuiaCarro: c.guiaCarro,
                      ToneladasNetasCarro: c.toneladasNetasCarro.toString(),
                    },
                    c.contenedores.map((k) =>
                      el('cartaporte31:Contenedor', {
                        TipoContenedor: k.tipoContenedor,
                        PesoContenedorVacio: k.pesoContenedorVacio.toString(),
                        PesoNetoMercancia: k.pesoNetoMercancia.toString(),
                      }),
                    ),
                  ),
                ),
              ],
            ),
        ],
      ),
      m.figuraTransporte.length > 0 && el('cartaporte31:FiguraTransporte', {}, m.figuraTransporte.map(figuraNode)),
    ],
  );
}
