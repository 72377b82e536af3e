import { PERIODICIDAD_DESCRIPCION } from '../../catalogs.ts';
import { amountIn, none, printedDate, rateText } from '../../../pdf/format.ts';
import type { PdfLayout } from '../../../pdf/layout.ts';
import { child, childrenNamed, type XmlNode } from '../../../xml.ts';
import { PLATAFORMAS_NS } from './xml.ts';

const P = PLATAFORMAS_NS.prefix;
const pesos = (amount: string | undefined) => amountIn('MXN', amount);

/** "04 - Mensual"; the bare key when the catalog does not know it. */
const periodicidad = (key: string | undefined) => (key && PERIODICIDAD_DESCRIPCION[key] ? `${key} - ${PERIODICIDAD_DESCRIPCION[key]}` : (key ?? ''));

/**
 * Servicios de Plataformas Tecnológicas 1.0: the period's totals, then one row per service (date, form of payment, type,
 * price without IVA, the IVA transferred and the platform's commission; the authorised third party and the government
 * contribution under it). The 2026 keys of its catalog are printed as keys: SAT's descriptions are not in our sources.
 */
export function renderPlataformas(layout: PdfLayout, node: XmlNode): void {
  const a = node.attrs;
  layout.section('SERVICIOS DE PLATAFORMAS TECNOLÓGICAS');
  layout.fields(
    [
      ['Periodicidad', periodicidad(a.Periodicidad)],
      ['Número de servicios', a.NumServ],
      ['Monto total de los servicios sin IVA', pesos(a.MonTotServSIVA)],
      ['Total de IVA trasladado', pesos(a.TotalIVATrasladado)],
      ['Total de IVA retenido', pesos(a.TotalIVARetenido)],
      ['Total de ISR retenido', pesos(a.TotalISRRetenido)],
      ['Diferencia de IVA entregado al prestador', pesos(a.DifIVAEntregadoPrestServ)],
      ['Monto total por uso de la plataforma', pesos(a.MonTotalporUsoPlataforma)],
      ['Monto total de contribuciones gubernamentales', a.MonTotalContribucionGubernamental && pesos(a.MonTotalContribucionGubernamental)],
    ],
    3,
  );
  layout.heading('Servicios');
  const row = layout.table([
    { title: 'Fecha', width: 46 },
    { title: 'Forma de pago', width: 40 },
    { title: 'Tipo / subtipo de servicio', width: 52 },
    { title: 'Precio sin IVA', width: 72, align: 'right', size: 7.5 },
    { title: 'Tasa de IVA', width: 40, align: 'right' },
    { title: 'IVA trasladado', width: 70, align: 'right', size: 7.5 },
    { title: 'Comisión', width: 70, align: 'right', size: 7.5 },
    { title: 'Detalle', width: 150 },
  ]);
  for (const servicio of childrenNamed(child(node, `${P}:Servicios`) ?? none, `${P}:DetallesDelServicio`)) {
    const s = servicio.attrs;
    const iva = child(servicio, `${P}:ImpuestosTrasladadosdelServicio`)?.attrs;
    const comision = child(servicio, `${P}:ComisionDelServicio`)?.attrs;
    const contribucion = child(servicio, `${P}:ContribucionGubernamental`)?.attrs;
    row([
      printedDate(s.FechaServ),
      s.FormaPagoServ ?? '',
      [s.TipoDeServ, s.SubTipServ].filter(Boolean).join(' / '),
      pesos(s.PrecioServSinIVA),
      iva ? rateText(iva.TipoFactor, iva.TasaCuota) : '',
      iva ? pesos(iva.Importe) : '',
      comision ? pesos(comision.Importe) : '',
      [
        ...(iva ? [`Base del IVA trasladado: ${pesos(iva.Base)}`] : []),
        ...(comision?.Porcentaje ? [`Comisión: ${rateText('Tasa', comision.Porcentaje)}${comision.Base ? ` de ${pesos(comision.Base)}` : ''}`] : []),
        ...(s.RFCTerceroAutorizado ? [`RFC del tercero autorizado: ${s.RFCTerceroAutorizado}`] : []),
        ...(contribucion
          ? [`Contribución gubernamental: ${pesos(contribucion.ImpContrib)} · Entidad ${contribucion.EntidadDondePagaLaContribucion ?? ''}`]
          : []),
      ].join(' · '),
    ]);
  }
}
