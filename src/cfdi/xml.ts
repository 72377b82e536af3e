import { XMLParser } from 'fast-xml-parser';

/** An XML element: name with prefix, attributes in writing order, child elements. CFDI has no text content. */
export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}

/** Builds a node, dropping attributes that are undefined (optional and absent: never written empty). */
export function el(name: string, attrs: Record<string, string | undefined>, children: (XmlNode | undefined | false)[] = []): XmlNode {
  const clean: Record<string, string> = {};
  for (const k in attrs) if (attrs[k] !== undefined) clean[k] = attrs[k];
  return { name, attrs: clean, children: children.filter((c): c is XmlNode => !!c) };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };
const NEEDS_ESCAPE = /[&<>"\t\n\r]/;
/**
 * The one escaper of text written into XML, attribute values and element text alike (SOAP requests build with it).
 * Most values need no escape: testing first is cheaper than a replace that finds nothing (every attribute of every invoice).
 */
export const escapeXml = (v: string) => (NEEDS_ESCAPE.test(v) ? v.replace(/[&<>"\t\n\r]/g, (c) => ESCAPES[c]!) : v);

function write(node: XmlNode, out: string[]): void {
  out.push('<', node.name);
  for (const k in node.attrs) out.push(' ', k, '="', escapeXml(node.attrs[k]!), '"');
  if (node.children.length === 0) {
    out.push('/>');
    return;
  }
  out.push('>');
  for (const child of node.children) write(child, out);
  out.push('</', node.name, '>');
}

/** UTF-8 document text with the XML declaration; compact (whitespace between elements is not meaningful). */
export function serializeXml(root: XmlNode): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  write(root, out);
  return out.join('');
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  preserveOrder: true,
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  processEntities: true,
  // The library's switch for numeric character references too: a Descripcion may carry &#9; &#10; &#13;.
  htmlEntities: true,
});

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };

function toNode(entry: Ordered): XmlNode | undefined {
  const name = Object.keys(entry).find((k) => k !== ':@');
  if (!name || name === '#text' || name.startsWith('?')) return undefined;
  const children = (entry[name] as Ordered[]).map(toNode).filter((c): c is XmlNode => !!c);
  return { name, attrs: { ...(entry[':@'] ?? {}) }, children };
}

/** Parses a CFDI document into nodes (attributes decoded: `&amp;` → `&`, `&#10;` → LF). */
export function parseXml(xml: string): XmlNode {
  const doc = parser.parse(xml) as Ordered[];
  const root = doc.map(toNode).find((n) => n !== undefined);
  if (!root) throw new Error('empty XML document');
  return root;
}

export const child = (node: XmlNode, name: string): XmlNode | undefined => node.children.find((c) => c.name === name);
export const childrenNamed = (node: XmlNode, name: string): XmlNode[] => node.children.filter((c) => c.name === name);
