import type { TaxLine } from '../../model.ts';
import { el, type XmlNode } from '../../xml.ts';
import type { PagosModel } from './model.ts';

const taxDR = (name: string, t: TaxLine) =>
  el(name, { BaseDR: t.base.toString(), ImpuestoDR: t.impuesto, TipoFactorDR: t.tipoFactor, TasaOCuotaDR: t.tasaOCuota, ImporteDR: t.importe?.toString() });

/** pago20:Pagos, XSD order; the namespace is declared on cfdi:Comprobante. */
export function pagosNode(m: PagosModel): XmlNode {
  return el('pago20:Pagos', { Version: '2.0' }, [
    el('pago20:Totales', Object.fromEntries(m.totales.map(([k, v]) => [k, v.toString()]))),
    ...m.pagos.map((p) =>
      el(
        'pago20:Pago',
        { FechaPago: p.fechaPago, FormaDePagoP: p.formaDePagoP, MonedaP: p.monedaP, TipoCambioP: p.tipoCambioP, Monto: p.monto.toString(), ...p.banco },
        [
          ...p.documentos.map((d) =>
            el(
              'pago20:DoctoRelacionado',
              {
                IdDocumento: d.idDocumento,
                Serie: d.serie,
                Folio: d.folio,
                MonedaDR: d.monedaDR,
                EquivalenciaDR: d.equivalenciaDR,
                NumParcialidad: String(d.numParcialidad),
                ImpSaldoAnt: d.impSaldoAnt.toString(),
                ImpPagado: d.impPagado.toString(),
                ImpSaldoInsoluto: d.impSaldoInsoluto.toString(),
                ObjetoImpDR: d.objetoImpDR,
              },
              [
                d.traslados.length + d.retenciones.length > 0 &&
                  el('pago20:ImpuestosDR', {}, [
                    d.retenciones.length > 0 &&
                      el(
                        'pago20:RetencionesDR',
                        {},
                        d.retenciones.map((t) => taxDR('pago20:RetencionDR', t)),
                      ),
                    d.traslados.length > 0 &&
                      el(
                        'pago20:TrasladosDR',
                        {},
                        d.traslados.map((t) => taxDR('pago20:TrasladoDR', t)),
                      ),
                  ]),
              ],
            ),
          ),
          p.trasladosP.length + p.retencionesP.length > 0 &&
            el('pago20:ImpuestosP', {}, [
              p.retencionesP.length > 0 &&
                el(
                  'pago20:RetencionesP',
                  {},
                  p.retencionesP.map((r) => el('pago20:RetencionP', { ImpuestoP: r.impuesto, ImporteP: r.importe.toString() })),
                ),
              p.trasladosP.length > 0 &&
                el(
                  'pago20:TrasladosP',
                  {},
                  p.trasladosP.map((t) =>
                    el('pago20:TrasladoP', {
                      BaseP: t.base.toString(),
                      ImpuestoP: t.impuesto,
                      TipoFactorP: t.tipoFactor,
                      TasaOCuotaP: t.tasaOCuota,
                      ImporteP: t.importe?.toString(),
                    }),
                  ),
                ),
            ]),
        ],
      ),
    ),
  ]);
}
