import type { Dec } from '../../decimal.ts';
import { el, type XmlNode } from '../../xml.ts';
import type { NominaModel } from './model.ts';

const w = (d: Dec | undefined) => d?.toString();

/** The `nomina12:Nomina` element, attributes and children in nomina12.xsd order. No xmlns: the root declares it. */
export function nominaNode(m: NominaModel): XmlNode {
  const r = m.receptor;
  const p = m.percepciones;
  const e = m.emisor;
  return el(
    'nomina12:Nomina',
    {
      Version: '1.2',
      TipoNomina: m.tipoNomina,
      FechaPago: m.fechaPago,
      FechaInicialPago: m.fechaInicialPago,
      FechaFinalPago: m.fechaFinalPago,
      NumDiasPagados: m.numDiasPagados.toString(),
      TotalPercepciones: w(m.totalPercepciones),
      TotalDeducciones: w(m.totalDeducciones),
      TotalOtrosPagos: w(m.totalOtrosPagos),
    },
    [
      e &&
        el('nomina12:Emisor', { Curp: e.curp, RegistroPatronal: e.registroPatronal, RfcPatronOrigen: e.rfcPatronOrigen }, [
          e.entidadSncf && el('nomina12:EntidadSNCF', { OrigenRecurso: e.entidadSncf.origenRecurso, MontoRecursoPropio: w(e.entidadSncf.montoRecursoPropio) }),
        ]),
      el(
        'nomina12:Receptor',
        {
          Curp: r.curp,
          NumSeguridadSocial: r.numSeguridadSocial,
          FechaInicioRelLaboral: r.fechaInicioRelLaboral,
          Antigüedad: r.antiguedad,
          TipoContrato: r.tipoContrato,
          Sindicalizado: r.sindicalizado,
          TipoJornada: r.tipoJornada,
          TipoRegimen: r.tipoRegimen,
          NumEmpleado: r.numEmpleado,
          Departamento: r.departamento,
          Puesto: r.puesto,
          RiesgoPuesto: r.riesgoPuesto,
          PeriodicidadPago: r.periodicidadPago,
          Banco: r.banco,
          CuentaBancaria: r.cuentaBancaria,
          SalarioBaseCotApor: w(r.salarioBaseCotApor),
          SalarioDiarioIntegrado: w(r.salarioDiarioIntegrado),
          ClaveEntFed: r.claveEntFed,
        },
        r.subContratacion.map((s) => el('nomina12:SubContratacion', { RfcLabora: s.rfcLabora, PorcentajeTiempo: s.porcentajeTiempo.toString() })),
      ),
      p &&
        el(
          'nomina12:Percepciones',
          {
            TotalSueldos: w(p.totalSueldos),
            TotalSeparacionIndemnizacion: w(p.totalSeparacionIndemnizacion),
            TotalJubilacionPensionRetiro: w(p.totalJubilacionPensionRetiro),
            TotalGravado: w(p.totalGravado),
            TotalExento: w(p.totalExento),
          },
          [
            ...p.items.map((x) =>
              el(
                'nomina12:Percepcion',
                {
                  TipoPercepcion: x.tipoPercepcion,
                  Clave: x.clave,
                  Concepto: x.concepto,
                  ImporteGravado: w(x.importeGravado),
                  ImporteExento: w(x.importeExento),
                },
                [
                  x.accionesOTitulos &&
                    el('nomina12:AccionesOTitulos', {
                      ValorMercado: w(x.accionesOTitulos.valorMercado),
                      PrecioAlOtorgarse: w(x.accionesOTitulos.precioAlOtorgarse),
                    }),
                  ...x.horasExtra.map((h) =>
                    el('nomina12:HorasExtra', {
                      Dias: String(h.dias),
                      TipoHoras: h.tipoHoras,
                      HorasExtra: String(h.horasExtra),
                      ImportePagado: w(h.importePagado),
                    }),
                  ),
                ],
              ),
            ),
            p.jubilacionPensionRetiro &&
              el('nomina12:JubilacionPensionRetiro', {
                TotalUnaExhibicion: w(p.jubilacionPensionRetiro.totalUnaExhibicion),
                TotalParcialidad: w(p.jubilacionPensionRetiro.totalParcialidad),
                MontoDiario: w(p.jubilacionPensionRetiro.montoDiario),
                IngresoAcumulable: w(p.jubilacionPensionRetiro.ingresoAcumulable),
                IngresoNoAcumulable: w(p.jubilacionPensionRetiro.ingresoNoAcumulable),
              }),
            p.separacionIndemnizacion &&
              el('nomina12:SeparacionIndemnizacion', {
                TotalPagado: w(p.separacionIndemnizacion.totalPagado),
                NumAñosServicio: String(p.separacionIndemnizacion.numAniosServicio),
                UltimoSueldoMensOrd: w(p.separacionIndemnizacion.ultimoSueldoMensOrd),
                IngresoAcumulable: w(p.separacionIndemnizacion.ingresoAcumulable),
                IngresoNoAcumulable: w(p.separacionIndemnizacion.ingresoNoAcumulable),
              }),
          ],
        ),
      m.deducciones &&
        el(
          'nomina12:Deducciones',
          { TotalOtrasDeducciones: w(m.deducciones.totalOtrasDeducciones), TotalImpuestosRetenidos: w(m.deducciones.totalImpuestosRetenidos) },
          m.deducciones.items.map((d) =>
            el('nomina12:Deduccion', { TipoDeduccion: d.tipoDeduccion, Clave: d.clave, Concepto: d.concepto, Importe: w(d.importe) }),
          ),
        ),
      m.otrosPagos &&
        el(
          'nomina12:OtrosPagos',
          {},
          m.otrosPagos.map((o) =>
            el('nomina12:OtroPago', { TipoOtroPago: o.tipoOtroPago, Clave: o.clave, Concepto: o.concepto, Importe: w(o.importe) }, [
              o.subsidioCausado && el('nomina12:SubsidioAlEmpleo', { SubsidioCausado: w(o.subsidioCausado) }),
              o.compensacionSaldosAFavor &&
                el('nomina12:CompensacionSaldosAFavor', {
                  SaldoAFavor: w(o.compensacionSaldosAFavor.saldoAFavor),
                  Año: String(o.compensacionSaldosAFavor.anio),
                  RemanenteSalFav: w(o.compensacionSaldosAFavor.remanenteSalFav),
                }),
            ]),
          ),
        ),
      m.incapacidades &&
        el(
          'nomina12:Incapacidades',
          {},
          m.incapacidades.map((x) =>
            el('nomina12:Incapacidad', {
              DiasIncapacidad: String(x.diasIncapacidad),
              TipoIncapacidad: x.tipoIncapacidad,
              ImporteMonetario: w(x.importeMonetario),
            }),
          ),
        ),
    ],
  );
}
