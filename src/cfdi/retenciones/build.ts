import type { CsdSigner } from '../csd.ts';
import { el, serializeXml, type XmlNode } from '../xml.ts';
import { cadenaRetencion } from './cadena.ts';
import { BY_NAMESPACE, COMPLEMENTS, memberOf } from './complements/index.ts';
import type { RetencionModel } from './model.ts';

const RETENCIONES_NS = 'http://www.sat.gob.mx/esquemas/retencionpago/2';
const RETENCIONES_LOCATION = `${RETENCIONES_NS} http://www.sat.gob.mx/esquemas/retencionpago/2/retencionpagov2.xsd`;

/** The complements' nodes, the structured ones in registry order then those sent as XML, with their schemas. */
function complements(m: RetencionModel) {
  const structured = COMPLEMENTS.flatMap((c) => {
    const model = memberOf(m, c.model);
    return model === undefined ? [] : [{ schema: c, node: c.node(model) }];
  });
  const raw = m.rawComplements.map((node) => {
    const prefix = node.name.slice(0, node.name.indexOf(':'));
    return { schema: BY_NAMESPACE.get(node.attrs[`xmlns:${prefix}`] ?? '')!, node: withoutDeclarations(node) };
  });
  return [...structured, ...raw];
}

/** A node sent as XML without its own namespace declarations and schemaLocation: the root declares them once. */
function withoutDeclarations(node: XmlNode): XmlNode {
  const attrs = Object.fromEntries(Object.entries(node.attrs).filter(([k]) => !k.startsWith('xmlns') && k !== 'xsi:schemaLocation'));
  return { ...node, attrs, children: node.children.map(withoutDeclarations) };
}

/** The whole `retenciones:Retenciones` (XSD child order) with NoCertificado and Certificado of the signer; Sello empty. */
function retencionNode(m: RetencionModel, signer: Pick<CsdSigner, 'noCertificado' | 'certificadoBase64'>): XmlNode {
  const comps = complements(m);
  const schemas = comps.map((c) => c.schema);
  const t = m.totales;
  const r = m.receptor;
  return el(
    'retenciones:Retenciones',
    {
      'xmlns:retenciones': RETENCIONES_NS,
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      ...Object.fromEntries(schemas.map((s) => [`xmlns:${s.prefix}`, s.namespace])),
      'xsi:schemaLocation': [RETENCIONES_LOCATION, ...schemas.map((s) => `${s.namespace} ${s.schemaLocation}`)].join(' '),
      Version: '2.0',
      FolioInt: m.folioInt,
      Sello: '',
      NoCertificado: signer.noCertificado,
      Certificado: signer.certificadoBase64,
      FechaExp: m.fechaExp,
      LugarExpRetenc: m.lugarExpRetenc,
      CveRetenc: m.cveRetenc,
      DescRetenc: m.descRetenc,
    },
    [
      m.relacionado && el('retenciones:CfdiRetenRelacionados', { TipoRelacion: m.relacionado.tipoRelacion, UUID: m.relacionado.uuid }),
      el('retenciones:Emisor', { RfcE: m.emisor.rfc, NomDenRazSocE: m.emisor.nombre, RegimenFiscalE: m.emisor.regimenFiscal }),
      el('retenciones:Receptor', { NacionalidadR: r.nacionalidad }, [
        r.nacionalidad === 'Nacional'
          ? el('retenciones:Nacional', { RfcR: r.rfc, NomDenRazSocR: r.nombre, CurpR: r.curp, DomicilioFiscalR: r.domicilioFiscal })
          : el('retenciones:Extranjero', { NumRegIdTribR: r.numRegIdTrib, NomDenRazSocR: r.nombre }),
      ]),
      el('retenciones:Periodo', { MesIni: m.periodo.mesIni, MesFin: m.periodo.mesFin, Ejercicio: m.periodo.ejercicio }),
      el(
        'retenciones:Totales',
        {
          MontoTotOperacion: t.montoTotOperacion.toString(),
          MontoTotGrav: t.montoTotGrav.toString(),
          MontoTotExent: t.montoTotExent.toString(),
          MontoTotRet: t.montoTotRet.toString(),
          UtilidadBimestral: t.utilidadBimestral?.toString(),
          ISRCorrespondiente: t.isrCorrespondiente?.toString(),
        },
        t.impRetenidos.map((i) =>
          el('retenciones:ImpRetenidos', {
            BaseRet: i.baseRet?.toString(),
            ImpuestoRet: i.impuestoRet,
            MontoRet: i.montoRet.toString(),
            TipoPagoRet: i.tipoPagoRet,
          }),
        ),
      ),
      comps.length > 0 &&
        el(
          'retenciones:Complemento',
          {},
          comps.map((c) => c.node),
        ),
    ],
  );
}

export interface SealedRetencion {
  xml: string;
  cadena: string;
  sello: string;
}

/** Builds the XML, computes the cadena original from it and seals it with the CSD (RSA-SHA256, as a CFDI 4.0). */
export async function sealRetencion(m: RetencionModel, signer: CsdSigner): Promise<SealedRetencion> {
  const node = retencionNode(m, signer);
  const cadena = cadenaRetencion(node);
  const sello = await signer.sign(cadena);
  node.attrs.Sello = sello;
  return { xml: serializeXml(node), cadena, sello };
}
