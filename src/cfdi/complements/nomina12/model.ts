import type { Dec } from '../../decimal.ts';

/** Complemento Nómina 1.2 (rev. D) as it will be written: every amount final, at its written precision. */

export interface NominaContext {
  emisorRfc: string;
  /** Not checked here: XAXX010101000 for a deceased worker (NOM10) needs facts the API does not have. */
  receptorRfc: string;
  /** CFDI Fecha (YYYY-MM-DDThh:mm:ss): catalog keys must be in force on its day. */
  fecha: string;
}

export interface PercepcionModel {
  tipoPercepcion: string;
  clave: string;
  concepto: string;
  importeGravado: Dec;
  importeExento: Dec;
  accionesOTitulos?: { valorMercado: Dec; precioAlOtorgarse: Dec };
  horasExtra: { dias: number; tipoHoras: string; horasExtra: number; importePagado: Dec }[];
}

export interface PercepcionesModel {
  totalSueldos?: Dec;
  totalSeparacionIndemnizacion?: Dec;
  totalJubilacionPensionRetiro?: Dec;
  totalGravado: Dec;
  totalExento: Dec;
  items: PercepcionModel[];
  jubilacionPensionRetiro?: { totalUnaExhibicion?: Dec; totalParcialidad?: Dec; montoDiario?: Dec; ingresoAcumulable: Dec; ingresoNoAcumulable: Dec };
  separacionIndemnizacion?: { totalPagado: Dec; numAniosServicio: number; ultimoSueldoMensOrd: Dec; ingresoAcumulable: Dec; ingresoNoAcumulable: Dec };
}

export interface OtroPagoModel {
  tipoOtroPago: string;
  clave: string;
  concepto: string;
  importe: Dec;
  subsidioCausado?: Dec;
  compensacionSaldosAFavor?: { saldoAFavor: Dec; anio: number; remanenteSalFav: Dec };
}

/** Everything the node writes, amounts already at their written precision. */
export interface NominaModel {
  tipoNomina: string;
  fechaPago: string;
  fechaInicialPago: string;
  fechaFinalPago: string;
  numDiasPagados: Dec;
  totalPercepciones?: Dec;
  totalDeducciones?: Dec;
  totalOtrosPagos?: Dec;
  emisor?: { curp?: string; registroPatronal?: string; rfcPatronOrigen?: string; entidadSncf?: { origenRecurso: string; montoRecursoPropio?: Dec } };
  receptor: {
    curp: string;
    numSeguridadSocial?: string;
    fechaInicioRelLaboral?: string;
    antiguedad?: string;
    tipoContrato: string;
    sindicalizado?: 'Sí' | 'No';
    tipoJornada?: string;
    tipoRegimen: string;
    numEmpleado: string;
    departamento?: string;
    puesto?: string;
    riesgoPuesto?: string;
    periodicidadPago: string;
    banco?: string;
    cuentaBancaria?: string;
    salarioBaseCotApor?: Dec;
    salarioDiarioIntegrado?: Dec;
    claveEntFed: string;
    subContratacion: { rfcLabora: string; porcentajeTiempo: Dec }[];
  };
  percepciones?: PercepcionesModel;
  deducciones?: {
    totalOtrasDeducciones?: Dec;
    totalImpuestosRetenidos?: Dec;
    items: { tipoDeduccion: string; clave: string; concepto: string; importe: Dec }[];
  };
  otrosPagos?: OtroPagoModel[];
  incapacidades?: { diasIncapacidad: number; tipoIncapacidad: string; importeMonetario?: Dec }[];
}
