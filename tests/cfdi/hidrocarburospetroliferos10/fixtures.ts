import type { ConceptoHidrocarburosInput, HidrocarburosPetroliferosInput } from '../../../src/cfdi/complements/hidrocarburospetroliferos10/input.ts';
import type { HidroYPetroModel } from '../../../src/cfdi/complements/hidrocarburospetroliferos10/model.ts';
import { prepareHidrocarburosPetroliferos } from '../../../src/cfdi/complements/hidrocarburospetroliferos10/rules.ts';
import type { FieldProblem } from '../../../src/cfdi/input.ts';

/** A service station's retail permit for diesel (the number follows the PL/…/EXP/ES/… shape of SAT's examples). */
export const DIESEL: HidrocarburosPetroliferosInput = {
  tipo_permiso: 'PER07',
  numero_permiso: 'PL/23456/EXP/ES/2024',
  clave_hyp: '15101505',
  sub_producto_hyp: 'SP18',
};

export const diesel = (h: Partial<HidrocarburosPetroliferosInput> = {}): ConceptoHidrocarburosInput => ({
  clave_prod_serv: '15101505',
  hidrocarburos_petroliferos: { ...DIESEL, ...h },
});

export function run(conceptos: ConceptoHidrocarburosInput[]): { models: (HidroYPetroModel | undefined)[]; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const models = prepareHidrocarburosPetroliferos(conceptos, (field, issue, rule) => problems.push({ field, issue, rule }));
  return { models, problems };
}
