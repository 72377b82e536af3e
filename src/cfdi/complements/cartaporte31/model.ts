import type { Dec } from '../../decimal.ts';

/** Complemento Carta Porte 3.1 as it will be written: every value final, every computed attribute filled in. */

export interface CartaPorteContext {
  /** What the complement's rules check of the CFDI that carries it (CP103–CP111, CP177). */
  comprobante: {
    tipo: 'I' | 'T';
    moneda: string;
    receptorRfc: string;
    usoCfdi: string;
    /** Where a receptor problem is reported: `receptor` or `receptor_id`. */
    receptorField: string;
    /** Each concepto's ClaveProdServ, in order. */
    conceptos: string[];
  };
  /** CFDI Fecha (YYYY-MM-DDThh:mm:ss): catalog keys must be in force on its day. */
  fecha: string;
  emisorRfc: string;
  /** The IdCCP to write when the request brings none (the caller's random source keeps the engine pure). */
  newIdCcp: () => string;
}

import type { DomicilioModel } from '../domicilio.ts';

export type { DomicilioModel };

export interface UbicacionModel {
  tipoUbicacion: 'Origen' | 'Destino';
  idUbicacion: string;
  rfcRemitenteDestinatario: string;
  nombreRemitenteDestinatario?: string;
  numRegIdTrib?: string;
  residenciaFiscal?: string;
  numEstacion?: string;
  nombreEstacion?: string;
  navegacionTrafico?: string;
  fechaHoraSalidaLlegada: string;
  tipoEstacion?: string;
  distanciaRecorrida?: Dec;
  domicilio?: DomicilioModel;
}

export interface MercanciaModel {
  bienesTransp: string;
  claveStcc?: string;
  descripcion: string;
  cantidad: Dec;
  claveUnidad: string;
  unidad?: string;
  dimensiones?: string;
  materialPeligroso?: 'Sí' | 'No';
  cveMaterialPeligroso?: string;
  embalaje?: string;
  descripEmbalaje?: string;
  sectorCofepris?: string;
  nombreIngredienteActivo?: string;
  nomQuimico?: string;
  denominacionGenericaProd?: string;
  denominacionDistintivaProd?: string;
  fabricante?: string;
  fechaCaducidad?: string;
  loteMedicamento?: string;
  formaFarmaceutica?: string;
  condicionesEspTransp?: string;
  registroSanitarioFolioAutorizacion?: string;
  permisoImportacion?: string;
  folioImpoVucem?: string;
  numCas?: string;
  razonSocialEmpImp?: string;
  numRegSanPlagCofepris?: string;
  datosFabricante?: string;
  datosFormulador?: string;
  datosMaquilador?: string;
  usoAutorizado?: string;
  pesoEnKg: Dec;
  valorMercancia?: Dec;
  moneda?: string;
  fraccionArancelaria?: string;
  uuidComercioExt?: string;
  tipoMateria?: string;
  descripcionMateria?: string;
  documentacionAduanera: { tipoDocumento: string; numPedimento?: string; identDocAduanero?: string; rfcImpo?: string }[];
  guiasIdentificacion: { numeroGuiaIdentificacion: string; descripGuiaIdentificacion: string; pesoGuiaIdentificacion: Dec }[];
  cantidadTransporta: { cantidad: Dec; idOrigen: string; idDestino: string; cvesTransporte?: string }[];
  detalleMercancia?: { unidadPesoMerc: string; pesoBruto: Dec; pesoNeto: Dec; pesoTara: Dec; numPiezas?: number };
}

export interface AutotransporteModel {
  permSct: string;
  numPermisoSct: string;
  identificacionVehicular: { configVehicular: string; pesoBrutoVehicular: Dec; placaVm: string; anioModeloVm: number };
  seguros: {
    aseguraRespCivil: string;
    polizaRespCivil: string;
    aseguraMedAmbiente?: string;
    polizaMedAmbiente?: string;
    aseguraCarga?: string;
    polizaCarga?: string;
    primaSeguro?: Dec;
  };
  remolques: { subTipoRem: string; placa: string }[];
}

export interface TransporteMaritimoModel {
  permSct?: string;
  numPermisoSct?: string;
  nombreAseg?: string;
  numPolizaSeguro?: string;
  tipoEmbarcacion: string;
  matricula: string;
  numeroOmi: string;
  anioEmbarcacion?: number;
  nombreEmbarc?: string;
  nacionalidadEmbarc: string;
  unidadesDeArqBruto: Dec;
  tipoCarga: string;
  eslora?: Dec;
  manga?: Dec;
  calado?: Dec;
  puntal?: Dec;
  lineaNaviera?: string;
  nombreAgenteNaviero: string;
  numAutorizacionNaviero: string;
  numViaje?: string;
  numConocEmbarc?: string;
  permisoTempNavegacion?: string;
  contenedores: {
    tipoContenedor: string;
    matriculaContenedor?: string;
    numPrecinto?: string;
    idCcpRelacionado?: string;
    placaVmCcp?: string;
    fechaCertificacionCcp?: string;
    remolquesCcp: { subTipoRemCcp: string; placaCcp: string }[];
  }[];
}

export interface TransporteAereoModel {
  permSct: string;
  numPermisoSct: string;
  matriculaAeronave?: string;
  nombreAseg?: string;
  numPolizaSeguro?: string;
  numeroGuia: string;
  lugarContrato?: string;
  codigoTransportista: string;
  rfcEmbarcador?: string;
  numRegIdTribEmbarc?: string;
  residenciaFiscalEmbarc?: string;
  nombreEmbarcador?: string;
}

export interface TransporteFerroviarioModel {
  tipoDeServicio: string;
  tipoDeTrafico: string;
  nombreAseg?: string;
  numPolizaSeguro?: string;
  derechosDePaso: { tipoDerechoDePaso: string; kilometrajePagado: Dec }[];
  carros: {
    tipoCarro: string;
    matriculaCarro: string;
    guiaCarro: string;
    toneladasNetasCarro: Dec;
    contenedores: { tipoContenedor: string; pesoContenedorVacio: Dec; pesoNetoMercancia: Dec }[];
  }[];
}

export interface TipoFiguraModel {
  tipoFigura: string;
  rfcFigura?: string;
  numLicencia?: string;
  nombreFigura: string;
  numRegIdTribFigura?: string;
  residenciaFiscalFigura?: string;
  partesTransporte: string[];
  domicilio?: DomicilioModel;
}

export interface CartaPorteModel {
  idCcp: string;
  transpInternac: 'Sí' | 'No';
  entradaSalidaMerc?: string;
  paisOrigenDestino?: string;
  viaEntradaSalida?: string;
  totalDistRec?: Dec;
  registroIstmo?: 'Sí';
  ubicacionPoloOrigen?: string;
  ubicacionPoloDestino?: string;
  regimenesAduaneros: string[];
  ubicaciones: UbicacionModel[];
  mercancias: {
    pesoBrutoTotal: Dec;
    unidadPeso: string;
    pesoNetoTotal?: Dec;
    numTotalMercancias: number;
    cargoPorTasacion?: Dec;
    logisticaInversaRecoleccionDevolucion?: 'Sí';
    items: MercanciaModel[];
    autotransporte?: AutotransporteModel;
    transporteMaritimo?: TransporteMaritimoModel;
    transporteAereo?: TransporteAereoModel;
    transporteFerroviario?: TransporteFerroviarioModel;
  };
  figuraTransporte: TipoFiguraModel[];
}
