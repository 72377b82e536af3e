import { attrs, each, O, R, type Step } from '../../cadena-steps.ts';

/** nomina12.xslt. */
export const NOMINA_12: Step[] = [
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
