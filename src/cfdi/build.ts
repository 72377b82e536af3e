import { cadenaOriginal } from './cadena.ts';
import { COMPLEMENTS, CONCEPTO_COMPLEMENTS, memberOf } from './complements/index.ts';
import type { CsdSigner } from './csd.ts';
import type { ComprobanteModel, ConceptoModel, TaxLine } from './model.ts';
import { el, serializeXml, type XmlNode } from './xml.ts';

const CFDI_LOCATION = 'http://www.sat.gob.mx/cfd/4 http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd';

/** Complement namespaces, declared on the root with their schemaLocation pair (docs/sat-rules.md §1), in registry order. */
function namespaces(m: ComprobanteModel): Record<string, string> {
  const used = COMPLEMENTS.filter((c) => memberOf(m, c.model) !== undefined);
  for (const c of CONCEPTO_COMPLEMENTS) if (m.conceptos.some((concepto) => memberOf(concepto, c.model) !== undefined)) used.push(c);
  return {
    'xmlns:cfdi': 'http://www.sat.gob.mx/cfd/4',
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    ...Object.fromEntries(used.map((c) => [`xmlns:${c.prefix}`, c.namespace])),
    'xsi:schemaLocation': [CFDI_LOCATION, ...used.map((c) => `${c.namespace} ${c.schemaLocation}`)].join(' '),
  };
}

/** The complement nodes the model (or a concepto) carries, in registry order (the PAC appends the TFD). */
function complementNodes(m: ComprobanteModel | ConceptoModel, registry: typeof COMPLEMENTS): XmlNode[] {
  const nodes: XmlNode[] = [];
  for (const c of registry) {
    const model = memberOf(m, c.model);
    if (model !== undefined) nodes.push(c.node(model));
  }
  return nodes;
}

const traslado = (t: TaxLine) =>
  el('cfdi:Traslado', { Base: t.base.toString(), Impuesto: t.impuesto, TipoFactor: t.tipoFactor, TasaOCuota: t.tasaOCuota, Importe: t.importe?.toString() });
const retencion = (t: TaxLine) =>
  el('cfdi:Retencion', { Base: t.base.toString(), Impuesto: t.impuesto, TipoFactor: t.tipoFactor, TasaOCuota: t.tasaOCuota, Importe: t.importe?.toString() });

function conceptoNode(c: ConceptoModel): XmlNode {
  const complementoConcepto = CONCEPTO_COMPLEMENTS.length > 0 ? complementNodes(c, CONCEPTO_COMPLEMENTS) : [];
  const hasTaxes = c.traslados.length > 0 || c.retenciones.length > 0;
  return el(
    'cfdi:Concepto',
    {
      ClaveProdServ: c.claveProdServ,
      NoIdentificacion: c.noIdentificacion,
      Cantidad: c.cantidad.toString(),
      ClaveUnidad: c.claveUnidad,
      Unidad: c.unidad,
      Descripcion: c.descripcion,
      ValorUnitario: c.valorUnitario.toString(),
      Importe: c.importe.toString(),
      Descuento: c.descuento?.toString(),
      ObjetoImp: c.objetoImp,
    },
    [
      hasTaxes &&
        el('cfdi:Impuestos', {}, [
          c.traslados.length > 0 && el('cfdi:Traslados', {}, c.traslados.map(traslado)),
          c.retenciones.length > 0 && el('cfdi:Retenciones', {}, c.retenciones.map(retencion)),
        ]),
      c.aCuentaTerceros &&
        el('cfdi:ACuentaTerceros', {
          RfcACuentaTerceros: c.aCuentaTerceros.rfc,
          NombreACuentaTerceros: c.aCuentaTerceros.nombre,
          RegimenFiscalACuentaTerceros: c.aCuentaTerceros.regimenFiscal,
          DomicilioFiscalACuentaTerceros: c.aCuentaTerceros.domicilioFiscal,
        }),
      // XSD order: after InformacionAduanera and CuentaPredial (not issued), before Parte.
      complementoConcepto.length > 0 && el('cfdi:ComplementoConcepto', {}, complementoConcepto),
    ],
  );
}

function impuestosNode(m: ComprobanteModel): XmlNode | undefined {
  const i = m.impuestos;
  if (!i) return undefined;
  return el('cfdi:Impuestos', { TotalImpuestosRetenidos: i.totalRetenidos?.toString(), TotalImpuestosTrasladados: i.totalTrasladados?.toString() }, [
    i.retenciones.length > 0 &&
      el(
        'cfdi:Retenciones',
        {},
        i.retenciones.map((r) => el('cfdi:Retencion', { Impuesto: r.impuesto, Importe: r.importe.toString() })),
      ),
    i.traslados.length > 0 && el('cfdi:Traslados', {}, i.traslados.map(traslado)),
  ]);
}

/** The whole `cfdi:Comprobante` (XSD child order), with NoCertificado/Certificado of the signer; Sello empty. */
export function comprobanteNode(m: ComprobanteModel, signer: Pick<CsdSigner, 'noCertificado' | 'certificadoBase64'>): XmlNode {
  const complemento = complementNodes(m, COMPLEMENTS);
  return el(
    'cfdi:Comprobante',
    {
      ...namespaces(m),
      Version: '4.0',
      Serie: m.serie,
      Folio: m.folio,
      Fecha: m.fecha,
      Sello: '',
      FormaPago: m.formaPago,
      NoCertificado: signer.noCertificado,
      Certificado: signer.certificadoBase64,
      CondicionesDePago: m.condicionesDePago,
      SubTotal: m.subTotal.toString(),
      Descuento: m.descuento?.toString(),
      Moneda: m.moneda,
      TipoCambio: m.tipoCambio,
      Total: m.total.toString(),
      TipoDeComprobante: m.tipo,
      Exportacion: m.exportacion,
      MetodoPago: m.metodoPago,
      LugarExpedicion: m.lugarExpedicion,
    },
    [
      m.informacionGlobal &&
        el('cfdi:InformacionGlobal', { Periodicidad: m.informacionGlobal.periodicidad, Meses: m.informacionGlobal.meses, Año: m.informacionGlobal.anio }),
      ...m.relacionados.map((r) =>
        el(
          'cfdi:CfdiRelacionados',
          { TipoRelacion: r.tipoRelacion },
          r.uuids.map((u) => el('cfdi:CfdiRelacionado', { UUID: u })),
        ),
      ),
      el('cfdi:Emisor', { Rfc: m.emisor.rfc, Nombre: m.emisor.nombre, RegimenFiscal: m.emisor.regimenFiscal }),
      el('cfdi:Receptor', {
        Rfc: m.receptor.rfc,
        Nombre: m.receptor.nombre,
        DomicilioFiscalReceptor: m.receptor.domicilioFiscal,
        ResidenciaFiscal: m.receptor.residenciaFiscal,
        NumRegIdTrib: m.receptor.numRegIdTrib,
        RegimenFiscalReceptor: m.receptor.regimenFiscal,
        UsoCFDI: m.receptor.usoCfdi,
      }),
      el('cfdi:Conceptos', {}, m.conceptos.map(conceptoNode)),
      impuestosNode(m),
      complemento.length > 0 && el('cfdi:Complemento', {}, complemento),
    ],
  );
}

export interface SealedCfdi {
  xml: string;
  cadena: string;
  sello: string;
}

/** Builds the XML, computes the cadena original from it and seals it with the CSD. */
export async function sealComprobante(m: ComprobanteModel, signer: CsdSigner): Promise<SealedCfdi> {
  const node = comprobanteNode(m, signer);
  const cadena = cadenaOriginal(node);
  const sello = await signer.sign(cadena);
  node.attrs.Sello = sello;
  return { xml: serializeXml(node), cadena, sello };
}
