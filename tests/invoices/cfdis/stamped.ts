import { expect } from 'bun:test';
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { cadenaOriginal } from '../../../src/cfdi/cadena.ts';
import { Dec } from '../../../src/cfdi/decimal.ts';
import { tfdCadena, tfdFromNode } from '../../../src/cfdi/tfd.ts';
import { child, childrenNamed, parseXml, type XmlNode } from '../../../src/cfdi/xml.ts';
import type { createTestApp } from '../../helpers.ts';
import { cadenaFromSatXslt, tfdCadenaFromSatXslt, validateAgainstSatXsd } from '../../sat/verify.ts';

/** SAT's XSD (with the complements' schemas), SAT's XSLT cadena, the issuer's Sello and the sandbox's SelloSAT. */
export async function expectValidStamped(t: Awaited<ReturnType<typeof createTestApp>>, xml: string): Promise<XmlNode> {
  const xsd = await validateAgainstSatXsd(xml);
  expect(xsd.errors).toEqual([]);
  const root = parseXml(xml);
  const cadena = cadenaOriginal(root);
  expect(cadena).toBe(await cadenaFromSatXslt(xml));
  const certificado = Buffer.from(root.attrs.Certificado!, 'base64');
  const key = createPublicKey(new X509Certificate(certificado).publicKey.export({ type: 'spki', format: 'pem' }));
  expect(verify('sha256', Buffer.from(cadena, 'utf8'), key, Buffer.from(root.attrs.Sello!, 'base64'))).toBe(true);
  const tfd = tfdFromNode(child(child(root, 'cfdi:Complemento')!, 'tfd:TimbreFiscalDigital')!);
  const tfdChain = await tfdCadenaFromSatXslt(xml);
  expect(tfdCadena(tfd)).toBe(tfdChain);
  const satCert = Buffer.from(await (await t.app.request('/api/v1/sandbox/sat-certificate')).arrayBuffer());
  const satKey = createPublicKey(new X509Certificate(satCert).publicKey.export({ type: 'spki', format: 'pem' }));
  expect(verify('sha256', Buffer.from(tfdChain, 'utf8'), satKey, Buffer.from(tfd.selloSat, 'base64'))).toBe(true);
  return root;
}

/**
 * The Total recomputed from the XML's own parts, independently of the engine: SubTotal − Descuento + the
 * conceptos' traslados − their retenciones + local traslados − local retenciones (implocal, when present).
 */
export function recomputedTotal(root: XmlNode): string {
  const d = (v: string | undefined) => Dec.parse(v ?? '0');
  let total = d(root.attrs.SubTotal).sub(d(root.attrs.Descuento));
  for (const concepto of childrenNamed(child(root, 'cfdi:Conceptos')!, 'cfdi:Concepto')) {
    const impuestos = child(concepto, 'cfdi:Impuestos');
    if (!impuestos) continue;
    for (const t of childrenNamed(child(impuestos, 'cfdi:Traslados') ?? impuestos, 'cfdi:Traslado')) total = total.add(d(t.attrs.Importe));
    for (const r of childrenNamed(child(impuestos, 'cfdi:Retenciones') ?? impuestos, 'cfdi:Retencion')) total = total.sub(d(r.attrs.Importe));
  }
  const local = child(child(root, 'cfdi:Complemento') ?? root, 'implocal:ImpuestosLocales');
  if (local) {
    for (const t of childrenNamed(local, 'implocal:TrasladosLocales')) total = total.add(d(t.attrs.Importe));
    for (const r of childrenNamed(local, 'implocal:RetencionesLocales')) total = total.sub(d(r.attrs.Importe));
  }
  return total.round(2).toString();
}
