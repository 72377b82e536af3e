import { readFileSync } from 'node:fs';
import { validateWithXmllint, type SchemaValidation } from '../received/xmllint.ts';
import catCfdi from '../received/xsd/catCFDI.xsd' with { type: 'file' };
import tdCfdi from '../received/xsd/tdCFDI.xsd' with { type: 'file' };
import tfd11 from '../received/xsd/TimbreFiscalDigitalv11.xsd' with { type: 'file' };
import arrendamiento from './xsd/arrendamientoenfideicomiso.xsd' with { type: 'file' };
import catPlanes from './xsd/CatPlanesderetiro.xsd' with { type: 'file' };
import catPlataformas from './xsd/CatPlataformasTecnologicas.xsd' with { type: 'file' };
import catRetenciones from './xsd/catRetenciones.xsd' with { type: 'file' };
import dividendos from './xsd/dividendos.xsd' with { type: 'file' };
import enajenacion from './xsd/enajenaciondeacciones.xsd' with { type: 'file' };
import fideicomiso from './xsd/fideicomisonoempresarial.xsd' with { type: 'file' };
import intereses from './xsd/intereses.xsd' with { type: 'file' };
import hipotecarios from './xsd/intereseshipotecarios.xsd' with { type: 'file' };
import derivados from './xsd/operacionesconderivados.xsd' with { type: 'file' };
import pagosExtranjeros from './xsd/pagosaextranjeros.xsd' with { type: 'file' };
import planes from './xsd/planesderetiro11.xsd' with { type: 'file' };
import premios from './xsd/premios.xsd' with { type: 'file' };
import retencionpagov2 from './xsd/retencionpagov2.xsd' with { type: 'file' };
import sectorFinanciero from './xsd/sectorfinanciero.xsd' with { type: 'file' };
import plataformas from './xsd/ServiciosPlataformasTecnologicas10.xsd' with { type: 'file' };
import { BY_NAMESPACE } from './complements/index.ts';

/** SAT's schemas of Retenciones 2.0 and its complements (./xsd/README.md), by the flat names they import each other by. */
const XSD_PATHS: Record<string, string> = {
  'retencionpagov2.xsd': retencionpagov2,
  'catRetenciones.xsd': catRetenciones,
  'ServiciosPlataformasTecnologicas10.xsd': plataformas,
  'CatPlataformasTecnologicas.xsd': catPlataformas,
  'dividendos.xsd': dividendos,
  'pagosaextranjeros.xsd': pagosExtranjeros,
  'arrendamientoenfideicomiso.xsd': arrendamiento,
  'enajenaciondeacciones.xsd': enajenacion,
  'fideicomisonoempresarial.xsd': fideicomiso,
  'intereses.xsd': intereses,
  'intereseshipotecarios.xsd': hipotecarios,
  'operacionesconderivados.xsd': derivados,
  'premios.xsd': premios,
  'sectorfinanciero.xsd': sectorFinanciero,
  'planesderetiro11.xsd': planes,
  'CatPlanesderetiro.xsd': catPlanes,
  'catCFDI.xsd': catCfdi,
  'tdCFDI.xsd': tdCfdi,
  'TimbreFiscalDigitalv11.xsd': tfd11,
};
let files: { fileName: string; contents: string }[] | undefined;

/** The catalog schemas here are small: xmllint's default memory is enough (pages of 64 KiB). */
const MAX_PAGES = 2048;

function validate(xml: string, imports: [namespace: string, file: string][]): Promise<SchemaValidation> {
  files ??= Object.entries(XSD_PATHS).map(([fileName, path]) => ({ fileName, contents: readFileSync(path, 'utf8') }));
  const wrapper = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">${imports.map(([ns, file]) => `<xs:import namespace="${ns}" schemaLocation="${file}"/>`).join('')}</xs:schema>`;
  return validateWithXmllint({ fileName: 'retencion.xml', contents: xml }, { fileName: 'retenciones.xsd', contents: wrapper }, files, MAX_PAGES);
}

/** One complement's XML (its element alone) against its SAT schema. */
export const validateComplementSchema = (xml: string, namespace: string, xsd: string): Promise<SchemaValidation> => validate(xml, [[namespace, xsd]]);

/** A whole Retenciones 2.0 (stamped or not) against retencionpagov2.xsd, the TFD's schema and every complement's. */
export const validateRetencionSchema = (xml: string): Promise<SchemaValidation> =>
  validate(xml, [
    ['http://www.sat.gob.mx/esquemas/retencionpago/2', 'retencionpagov2.xsd'],
    ['http://www.sat.gob.mx/TimbreFiscalDigital', 'TimbreFiscalDigitalv11.xsd'],
    ...[...BY_NAMESPACE.values()].map((c): [string, string] => [c.namespace, c.xsd]),
  ]);
