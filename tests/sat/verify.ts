// Checks CFDI XML with SAT's own artefacts (tests/fixtures/sat, see its README), using only npm packages:
// xmllint-wasm for the XSD, SaxonJS (from the xslt3 package) for the cadena original stylesheets.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';

export const SAT_DIR = join(import.meta.dir, '..', 'fixtures', 'sat');

// --- XSD -------------------------------------------------------------------------------------------------

// Everything the wrapper schema reaches; catCFDI.xsd is the local stub (SAT's real file could not be obtained).
const XSD_FILES = [
  'local-cfdv40-with-complements.xsd',
  'cfdv40.xsd',
  'TimbreFiscalDigitalv11.xsd',
  'Pagos20.xsd',
  'nomina12.xsd',
  'CartaPorte31.xsd',
  'ComercioExterior20.xsd',
  'implocal.xsd',
  'hidrocarburospetroliferos.xsd',
  'catCFDI.xsd',
  'catPagos.xsd',
  'catNomina.xsd',
  'catCartaPorte.xsd',
  'catComExt.xsd',
  'catHidroYPetro.xsd',
  'tdCFDI.xsd',
];
let schemaFiles: XMLFileInfo[] | undefined;

export async function validateAgainstSatXsd(xml: string): Promise<{ valid: boolean; errors: string[] }> {
  schemaFiles ??= XSD_FILES.map((fileName) => ({ fileName, contents: readFileSync(join(SAT_DIR, 'xsd', fileName), 'utf8') }));
  const [schema, ...preload] = schemaFiles;
  try {
    const result = await validateXML({
      xml: { fileName: 'cfdi.xml', contents: xml },
      schema: schema!,
      preload,
      modifyArguments: (args) => ['--nonet', ...args],
      // The Carta Porte and Comercio Exterior catalog schemas (tens of thousands of enumerations) outgrow the default 32 MiB.
      maxMemoryPages: 16384,
    });
    return { valid: result.valid, errors: result.errors.map((e) => e.rawMessage) };
  } catch (err) {
    // xmllint exit code 1 = the document is not well-formed: a validation failure, not a tooling failure.
    if ((err as { code?: unknown }).code === 1)
      return {
        valid: false,
        errors: String((err as Error).message)
          .trim()
          .split('\n'),
      };
    throw err;
  }
}

// --- XSLT (SaxonJS) --------------------------------------------------------------------------------------

interface SaxonJS {
  transform(options: { stylesheetInternal: unknown; sourceText: string; destination: 'serialized' }, mode: 'async'): Promise<{ principalResult: string }>;
  XPath: {
    evaluate(xpath: string, context: unknown, options?: { params?: Record<string, unknown>; namespaceContext?: Record<string, string> }): unknown;
  };
}

let saxon: SaxonJS | undefined;
// saxon-js is a dependency of xslt3, not of this project: resolve it from xslt3 so any npm layout works.
// Loaded on first use because it takes ~0.4 s.
function saxonJS(): SaxonJS {
  saxon ??= createRequire(import.meta.resolve('xslt3'))('saxon-js') as SaxonJS;
  return saxon;
}

const sefCache = new Map<string, unknown>();
async function transformWithSef(sefName: string, xml: string): Promise<string> {
  let sef = sefCache.get(sefName);
  if (!sef) sefCache.set(sefName, (sef = JSON.parse(readFileSync(join(SAT_DIR, 'sef', sefName), 'utf8'))));
  const result = await saxonJS().transform({ stylesheetInternal: sef, sourceText: xml, destination: 'serialized' }, 'async');
  return result.principalResult;
}

/** Cadena original of a CFDI 4.0 by SAT's cadenaoriginal_4_0.xslt (precompiled SEF). */
export function cadenaFromSatXslt(xml: string): Promise<string> {
  return transformWithSef('cadenaoriginal_4_0.sef.json', xml);
}

/**
 * The tfd:TimbreFiscalDigital element of a stamped CFDI as a document of its own (SAT's TFD stylesheet matches
 * /tfd:TimbreFiscalDigital). serialize() keeps the in-scope namespace declarations, like the xsl:copy-of that
 * produced the stored .tfd-cadena.txt files.
 */
export function extractTfd(stampedXml: string): string {
  return saxonJS().XPath.evaluate('serialize(exactly-one(parse-xml($xml)//tfd:TimbreFiscalDigital))', null, {
    params: { xml: stampedXml },
    namespaceContext: { tfd: 'http://www.sat.gob.mx/TimbreFiscalDigital' },
  }) as string;
}

/** Cadena original of the TFD of a stamped CFDI by SAT's cadenaoriginal_TFD_1_1.xslt (precompiled SEF). */
export function tfdCadenaFromSatXslt(stampedXml: string): Promise<string> {
  return transformWithSef('cadenaoriginal_TFD_1_1.sef.json', extractTfd(stampedXml));
}

/**
 * Runs a stylesheet of tests/fixtures/sat/xslt from its source, compiling it on the fly with the XSLT compiler
 * that SaxonJS carries for Node (cadenaoriginal_4_0.xslt: 6–8 s, synchronous). Only to check the committed SEF.
 */
export function transformFromXsltSource(xsltFile: string, xml: string): string {
  return saxonJS().XPath.evaluate("transform(map{'stylesheet-location': $xsl, 'source-node': parse-xml($xml), 'delivery-format': 'serialized'})?output", null, {
    params: { xsl: pathToFileURL(join(SAT_DIR, 'xslt', xsltFile)).href, xml },
  }) as string;
}

// --- Retenciones 2.0 --------------------------------------------------------------------------------------

/** The schemas under xsd/retenciones20 (as SAT's collection lays them out: they import ../catCFDI.xsd, ../tdCFDI.xsd). */
let retencionesFiles: XMLFileInfo[] | undefined;

/** A Retenciones 2.0 document against retencionpagov2.xsd, the TFD's and the 12 complements' schemas (the local wrapper). */
export async function validateRetencionAgainstSatXsd(xml: string): Promise<{ valid: boolean; errors: string[] }> {
  retencionesFiles ??= [
    ...readdirSync(join(SAT_DIR, 'xsd', 'retenciones20')).map((name) => ({
      fileName: `retenciones20/${name}`,
      contents: readFileSync(join(SAT_DIR, 'xsd', 'retenciones20', name), 'utf8'),
    })),
    ...['catCFDI.xsd', 'tdCFDI.xsd', 'TimbreFiscalDigitalv11.xsd'].map((fileName) => ({
      fileName,
      contents: readFileSync(join(SAT_DIR, 'xsd', fileName), 'utf8'),
    })),
  ];
  const schema = retencionesFiles.find((f) => f.fileName === 'retenciones20/local-retenciones20-with-complements.xsd')!;
  const result = await validateXML({
    xml: { fileName: 'retencion.xml', contents: xml },
    schema,
    preload: retencionesFiles.filter((f) => f !== schema),
    modifyArguments: (args) => ['--nonet', ...args],
  });
  return { valid: result.valid, errors: result.errors.map((e) => e.rawMessage) };
}

/** Cadena original of a Retenciones 2.0 by SAT's retenciones.xslt (precompiled SEF, with its 12 complement stylesheets). */
export function retencionCadenaFromSatXslt(xml: string): Promise<string> {
  return transformWithSef('retenciones_2_0.sef.json', xml);
}
