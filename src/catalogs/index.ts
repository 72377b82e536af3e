import { readFileSync } from 'node:fs';
import { parseCsv } from './csv.ts';

/** SAT catalogs shipped with the project (see data/README.md for provenance). Loaded once, on first use. */
const dataFile = (name: string) => readFileSync(new URL(`./data/${name}`, import.meta.url), 'utf8');

export interface RegimenFiscal {
  clave: string;
  descripcion: string;
  fisica: boolean;
  moral: boolean;
}

let regimenes: Map<string, RegimenFiscal> | undefined;
export function regimenFiscal(clave: string): RegimenFiscal | undefined {
  regimenes ??= new Map(
    parseCsv(dataFile('c_RegimenFiscal.csv'))
      .filter((r) => !r.valid_to)
      .map((r) => [r.clave!, { clave: r.clave!, descripcion: r.descripcion!, fisica: r.aplica_fisica === '1', moral: r.aplica_moral === '1' }]),
  );
  return regimenes.get(clave);
}

let postalCodes: Set<string> | undefined;
export function isPostalCode(code: string): boolean {
  // The file is large (95k rows) and only its first column is needed here: split lines, skip the header.
  postalCodes ??= new Set(dataFile('c_CodigoPostal.csv').split('\n').slice(1).map((l) => l.slice(0, 5)).filter(Boolean));
  return postalCodes.has(code);
}

/** 12 characters = persona moral, 13 = persona física (SAT t_RFC). */
export const personaOf = (rfc: string): 'moral' | 'fisica' => (rfc.length === 12 ? 'moral' : 'fisica');
