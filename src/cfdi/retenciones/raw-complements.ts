import type { Fail } from '../input.ts';
import { parseXml, serializeXml, type XmlNode } from '../xml.ts';
import type { ComplementSchema } from './complements/complement.ts';
import { BY_NAMESPACE, COMPLEMENTS } from './complements/index.ts';
import { validateComplementSchema } from './xsd.ts';

/** A complement sent as XML, parsed, with the entry it is and the text its schema is checked on. */
export interface RawComplement {
  node: XmlNode;
  schema: ComplementSchema;
  field: string;
}

const MAX_LENGTH = 256 * 1024;

/**
 * The complements sent as XML (`complementos_xml[i]`): well-formed, without a DTD (no entity expansion), one of SAT's
 * complements the engine does not structure, written with SAT's prefix (the one the cadena steps match), at most once
 * each. Their schemas are checked afterwards (checkRawSchemas: xmllint runs in a thread of its own).
 */
export function parseRawComplements(xmls: string[] | undefined, fail: Fail): RawComplement[] {
  const out: RawComplement[] = [];
  const seen = new Set<string>();
  (xmls ?? []).forEach((xml, i) => {
    const field = `complementos_xml[${i}]`;
    if (xml.length > MAX_LENGTH) return fail(field, `is longer than ${MAX_LENGTH} characters`);
    if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return fail(field, 'must not carry a DTD or entity declarations');
    let node: XmlNode;
    try {
      node = parseXml(xml);
    } catch (err) {
      return fail(field, `is not well-formed XML: ${(err as Error).message}`);
    }
    const prefix = node.name.includes(':') ? node.name.slice(0, node.name.indexOf(':')) : '';
    const namespace = node.attrs[prefix ? `xmlns:${prefix}` : 'xmlns'];
    const schema = namespace ? BY_NAMESPACE.get(namespace) : undefined;
    if (!schema) return fail(field, `${node.name} (namespace ${namespace ?? 'none'}) is not one of SAT's Retenciones 2.0 complements`);
    const structured = COMPLEMENTS.find((c) => c.namespace === namespace);
    if (structured) return fail(field, `${schema.element} is sent structured, as \`${structured.input}\``);
    if (node.name !== schema.element) return fail(field, `must be written as ${schema.element} (SAT's prefix), not ${node.name}`);
    if (seen.has(schema.element)) return fail(field, `${schema.element} is sent twice`);
    seen.add(schema.element);
    out.push({ node, schema, field });
  });
  return out;
}

/** Each complement, as it will be written, against its SAT schema; xmllint's first messages name what is wrong. */
export async function checkRawSchemas(raws: RawComplement[], fail: Fail): Promise<void> {
  const results = await Promise.all(raws.map((r) => validateComplementSchema(serializeXml(r.node), r.schema.namespace, r.schema.xsd)));
  results.forEach((result, i) => {
    if (!result.valid) fail(raws[i]!.field, `does not pass SAT's schema ${raws[i]!.schema.xsd}: ${result.errors.slice(0, 3).join('; ')}`);
  });
}
