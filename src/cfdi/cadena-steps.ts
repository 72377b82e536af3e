/**
 * The steps of a cadena original, one XSLT template each (src/cfdi/cadena.ts runs them): an attribute, required or
 * optional, a for-each over a child path, or "apply the complement templates to each child". Apart from cadena.ts so
 * that a complement (src/cfdi/complements/) writes its own steps without importing the runner that looks it up.
 */
export type Step =
  | { attr: string; required: boolean }
  | { each: string[]; steps: Step[] } // for-each over a child path
  | { complements: true }; // apply the complement templates to each child

export const R = (attr: string): Step => ({ attr, required: true });
export const O = (attr: string): Step => ({ attr, required: false });
export const each = (path: string, steps: Step[]): Step => ({ each: path.split('/'), steps });
/** Required attributes, then optional ones, each list space-separated. */
export const attrs = (required: string, optional = '') => [...required.split(' ').filter(Boolean).map(R), ...optional.split(' ').filter(Boolean).map(O)];
