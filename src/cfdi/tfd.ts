import { normalizeSpace } from './cadena.ts';
import { el, type XmlNode } from './xml.ts';

/** Timbre Fiscal Digital 1.1: what the PAC adds. */
export interface Tfd {
  uuid: string;
  fechaTimbrado: string;
  rfcProvCertif: string;
  leyenda?: string;
  selloCfd: string;
  noCertificadoSat: string;
  selloSat: string;
}

/** SAT cadenaoriginal_TFD_1_1.xslt: `||1.1|UUID|FechaTimbrado|RfcProvCertif[|Leyenda]|SelloCFD|NoCertificadoSAT||`. */
export function tfdCadena(t: Omit<Tfd, 'selloSat'>): string {
  const parts = ['1.1', t.uuid, t.fechaTimbrado, t.rfcProvCertif, ...(t.leyenda ? [t.leyenda] : []), t.selloCfd, t.noCertificadoSat];
  return `||${parts.map(normalizeSpace).join('|')}||`;
}

export function tfdNode(t: Tfd): XmlNode {
  return el('tfd:TimbreFiscalDigital', {
    'xmlns:tfd': 'http://www.sat.gob.mx/TimbreFiscalDigital',
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    'xsi:schemaLocation': 'http://www.sat.gob.mx/TimbreFiscalDigital http://www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd',
    Version: '1.1',
    UUID: t.uuid,
    FechaTimbrado: t.fechaTimbrado,
    RfcProvCertif: t.rfcProvCertif,
    Leyenda: t.leyenda,
    SelloCFD: t.selloCfd,
    NoCertificadoSAT: t.noCertificadoSat,
    SelloSAT: t.selloSat,
  });
}

export function tfdFromNode(node: XmlNode): Tfd {
  const a = node.attrs;
  return {
    uuid: a.UUID ?? '',
    fechaTimbrado: a.FechaTimbrado ?? '',
    rfcProvCertif: a.RfcProvCertif ?? '',
    leyenda: a.Leyenda,
    selloCfd: a.SelloCFD ?? '',
    noCertificadoSat: a.NoCertificadoSAT ?? '',
    selloSat: a.SelloSAT ?? '',
  };
}
