import { O, R, type Step, each } from './cadena-steps.ts';
import { COMPLEMENT_STEPS } from './complements/index.ts';
import { childrenNamed, type XmlNode } from './xml.ts';

/**
 * The cadena original, as SAT's cadenaoriginal_4_0.xslt builds it: `|` + required and present optional
 * attribute values (normalize-space'd) in the stylesheet's fixed order, `||` at the end. The tests compare this
 * with the XSLT's own output byte for byte. The complements' templates are theirs (src/cfdi/complements/).
 */
const TRASLADO = [R('Base'), R('Impuesto'), R('TipoFactor'), O('TasaOCuota'), O('Importe')];
const RETENCION = [R('Base'), R('Impuesto'), R('TipoFactor'), R('TasaOCuota'), R('Importe')];
const PARTE = [
  R('ClaveProdServ'),
  O('NoIdentificacion'),
  R('Cantidad'),
  O('Unidad'),
  R('Descripcion'),
  O('ValorUnitario'),
  O('Importe'),
  each('cfdi:InformacionAduanera', [R('NumeroPedimento')]),
];

const CONCEPTO: Step[] = [
  R('ClaveProdServ'),
  O('NoIdentificacion'),
  R('Cantidad'),
  R('ClaveUnidad'),
  O('Unidad'),
  R('Descripcion'),
  R('ValorUnitario'),
  R('Importe'),
  O('Descuento'),
  R('ObjetoImp'),
  each('cfdi:Impuestos/cfdi:Traslados/cfdi:Traslado', TRASLADO),
  each('cfdi:Impuestos/cfdi:Retenciones/cfdi:Retencion', RETENCION),
  each('cfdi:ACuentaTerceros', [R('RfcACuentaTerceros'), R('NombreACuentaTerceros'), R('RegimenFiscalACuentaTerceros'), R('DomicilioFiscalACuentaTerceros')]),
  each('cfdi:InformacionAduanera', [R('NumeroPedimento')]),
  each('cfdi:CuentaPredial', [R('Numero')]),
  // A concepto complement's templates, as for cfdi:Complemento (the stylesheet applies them to each child).
  each('cfdi:ComplementoConcepto', [{ complements: true }]),
  each('cfdi:Parte', PARTE),
];

const COMPROBANTE_40: Step[] = [
  R('Version'),
  O('Serie'),
  O('Folio'),
  R('Fecha'),
  O('FormaPago'),
  R('NoCertificado'),
  O('CondicionesDePago'),
  R('SubTotal'),
  O('Descuento'),
  R('Moneda'),
  O('TipoCambio'),
  R('Total'),
  R('TipoDeComprobante'),
  R('Exportacion'),
  O('MetodoPago'),
  R('LugarExpedicion'),
  O('Confirmacion'),
  each('cfdi:InformacionGlobal', [R('Periodicidad'), R('Meses'), R('Año')]),
  each('cfdi:CfdiRelacionados', [R('TipoRelacion'), each('cfdi:CfdiRelacionado', [R('UUID')])]),
  each('cfdi:Emisor', [R('Rfc'), R('Nombre'), R('RegimenFiscal'), O('FacAtrAdquirente')]),
  each('cfdi:Receptor', [
    R('Rfc'),
    R('Nombre'),
    R('DomicilioFiscalReceptor'),
    O('ResidenciaFiscal'),
    O('NumRegIdTrib'),
    R('RegimenFiscalReceptor'),
    R('UsoCFDI'),
  ]),
  each('cfdi:Conceptos/cfdi:Concepto', CONCEPTO),
  each('cfdi:Impuestos', [
    each('cfdi:Retenciones/cfdi:Retencion', [R('Impuesto'), R('Importe')]),
    O('TotalImpuestosRetenidos'),
    each('cfdi:Traslados/cfdi:Traslado', TRASLADO),
    O('TotalImpuestosTrasladados'),
  ]),
  each('cfdi:Complemento', [{ complements: true }]),
];

/** XPath normalize-space(): trim and collapse runs of space, tab, CR, LF. */
export const normalizeSpace = (s: string) => s.replace(/[ \t\r\n]+/g, ' ').trim();

function run(node: XmlNode, steps: Step[], out: string[], complements: Record<string, Step[]>): void {
  for (const step of steps) {
    if ('attr' in step) {
      const v = node.attrs[step.attr];
      // XSLT "Opcional" tests the attribute's string value: absent and empty are both skipped.
      if (step.required || (v !== undefined && v !== '')) out.push('|', normalizeSpace(v ?? ''));
    } else if ('each' in step) {
      let nodes = [node];
      for (const name of step.each) nodes = nodes.flatMap((n) => childrenNamed(n, name));
      for (const n of nodes) run(n, step.steps, out, complements);
    } else {
      for (const c of node.children) {
        const complement = complements[c.name];
        // Elements without a template (the TFD) contribute nothing: they carry no text.
        if (complement) run(c, complement, out, complements);
      }
    }
  }
}

/**
 * A cadena original by a stylesheet's steps: `|`, the values, `||`. `complements`: the templates SAT's stylesheet
 * includes, by element, for `{ complements: true }` steps (the Retenciones engine passes its own).
 */
export function cadenaOf(root: XmlNode, steps: Step[], complements: Record<string, Step[]>): string {
  const out: string[] = ['|'];
  run(root, steps, out, complements);
  out.push('||');
  return out.join('');
}

export const cadenaOriginal = (comprobante: XmlNode): string => cadenaOf(comprobante, COMPROBANTE_40, COMPLEMENT_STEPS);
