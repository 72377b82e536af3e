import { el, type XmlNode } from '../../xml.ts';
import type { ImpuestosLocalesModel } from './model.ts';

/** The complement's namespace and where SAT publishes its schema (the root declares both). */
export const IMPUESTOS_LOCALES_NS = {
  prefix: 'implocal',
  uri: 'http://www.sat.gob.mx/implocal',
  xsd: 'http://www.sat.gob.mx/sitio_internet/cfd/implocal/implocal.xsd',
} as const;

/**
 * implocal:ImpuestosLocales. Its schema lets the two kinds interleave; they are written retenciones first, in the
 * order implocal.xslt reads them, so the document reads as its cadena. Its `version` is lower case (SAT's spelling).
 */
export function impuestosLocalesNode(m: ImpuestosLocalesModel): XmlNode {
  return el(
    'implocal:ImpuestosLocales',
    { version: '1.0', TotaldeRetenciones: m.totaldeRetenciones.toString(), TotaldeTraslados: m.totaldeTraslados.toString() },
    [
      ...m.retenciones.map((r) =>
        el('implocal:RetencionesLocales', { ImpLocRetenido: r.impLocRetenido, TasadeRetencion: r.tasadeRetencion.toString(), Importe: r.importe.toString() }),
      ),
      ...m.traslados.map((t) =>
        el('implocal:TrasladosLocales', { ImpLocTrasladado: t.impLocTrasladado, TasadeTraslado: t.tasadeTraslado.toString(), Importe: t.importe.toString() }),
      ),
    ],
  );
}
