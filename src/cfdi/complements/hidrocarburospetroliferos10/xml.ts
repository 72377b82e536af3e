import { el, type XmlNode } from '../../xml.ts';
import type { HidroYPetroModel } from './model.ts';

/** The complement's namespace and where SAT publishes its schema (directly under cfd/, no folder of its own). */
export const HIDROCARBUROS_PETROLIFEROS_NS = {
  prefix: 'hidrocarburospetroliferos',
  uri: 'http://www.sat.gob.mx/hidrocarburospetroliferos',
  xsd: 'http://www.sat.gob.mx/sitio_internet/cfd/hidrocarburospetroliferos.xsd',
} as const;

/** hidrocarburospetroliferos:HidroYPetro, for its concepto's cfdi:ComplementoConcepto. */
export function hidroYPetroNode(m: HidroYPetroModel): XmlNode {
  return el('hidrocarburospetroliferos:HidroYPetro', {
    Version: '1.0',
    TipoPermiso: m.tipoPermiso,
    NumeroPermiso: m.numeroPermiso,
    ClaveHYP: m.claveHYP,
    SubProductoHYP: m.subProductoHYP,
  });
}
