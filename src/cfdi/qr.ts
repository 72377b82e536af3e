import QRCode from 'qrcode';
import { Dec } from './decimal.ts';

/** `tt` as phpcfdi/nodecfdi/CfdiUtils write it (docs/sat-rules.md §4): 6 decimals, trailing zeros stripped, at least one kept. */
export function formatTotalForQr(total: string): string {
  return Dec.parse(total).round(6).trim(1).toString();
}

/**
 * SAT's verification URL (Anexo 20 §D; docs/sat-rules.md §4): parameters id, re, rr, tt, fe in that order; RFCs with `&`
 * written `&amp;`; fe = the last 8 characters of the Sello; nothing URL-encoded, as the reference implementations do.
 */
export function verificationUrl(v: { uuid: string; rfcEmisor: string; rfcReceptor: string; total: string; sello: string }): string {
  const rfc = (r: string) => r.replaceAll('&', '&amp;');
  return (
    'https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx' +
    `?id=${v.uuid}&re=${rfc(v.rfcEmisor)}&rr=${rfc(v.rfcReceptor)}&tt=${formatTotalForQr(v.total)}&fe=${v.sello.slice(-8)}`
  );
}

/**
 * SAT's verification URL of a Retenciones 2.0 (docs/sat-rules.md §4): SAT's retenciones host, parameters id, re, then
 * rr (the receptor's RFC) or, for a foreign receptor, nr (its NumRegIdTribR, XML-escaped, cut and left-padded with
 * zeros to 20 characters), tt (MontoTotOperacion, as `tt` of a CFDI), fe; as phpcfdi/nodecfdi cfdi-expresiones write it.
 */
export function retencionVerificationUrl(v: {
  uuid: string;
  rfcEmisor: string;
  receptor: { rfc: string } | { numRegIdTrib: string };
  montoTotOperacion: string;
  sello: string;
}): string {
  const xmlText = (r: string) => r.replace(/[&<>"']/g, (c) => XML_ENTITIES[c]!);
  const receptor = 'rfc' in v.receptor ? `rr=${xmlText(v.receptor.rfc)}` : `nr=${xmlText(v.receptor.numRegIdTrib).slice(0, 20).padStart(20, '0')}`;
  return (
    'https://prodretencionverificacion.clouda.sat.gob.mx/' +
    `?id=${v.uuid}&re=${xmlText(v.rfcEmisor)}&${receptor}&tt=${formatTotalForQr(v.montoTotOperacion)}&fe=${v.sello.slice(-8)}`
  );
}

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * The second QR of a CFDI with Complemento Carta Porte: SAT's Carta Porte verification service with the complement's
 * IdCCP, the origin's FechaHoraSalidaLlegada and the TFD's FechaTimbrado, both as written in the XML, nothing encoded
 * (Estándar del complemento Carta Porte 3.1, section 4; docs/sat-rules.md §4).
 */
export function cartaPorteVerificationUrl(v: { idCCP: string; fechaOrig: string; fechaTimb: string }): string {
  return `https://verificacfdi.facturaelectronica.sat.gob.mx/verificaccp/default.aspx?IdCCP=${v.idCCP}&FechaOrig=${v.fechaOrig}&FechaTimb=${v.fechaTimb}`;
}

/** The QR symbol's modules (true = dark), row by row; error correction M, as Anexo 20 asks at least. */
export function qrMatrix(text: string): { size: number; dark: (row: number, col: number) => boolean } {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  return { size: modules.size, dark: (row, col) => modules.get(row, col) === 1 };
}
