import type { Complement } from '../complement.ts';
import { fixedConcepto } from '../../rules/conceptos.ts';
import { NOMINA_12 } from './cadena.ts';
import type { NominaInput } from './input.ts';
import type { NominaModel } from './model.ts';
import { nominaTotals, renderNomina } from './pdf.ts';
import { nominaComprobanteAmounts, prepareNomina } from './rules.ts';
import { nominaNode } from './xml.ts';

/** GET's view: the receipt totals. */
interface NominaSummary {
  total_percepciones?: string;
  total_deducciones?: string;
  total_otros_pagos?: string;
}

/** Complemento de Nómina 1.2 (rev. D): the tipo N (docs/sat-rules.md §9). */
export const nomina12: Complement<'nomina', 'nomina', NominaInput, NominaModel, object, NominaSummary> = {
  input: 'nomina',
  model: 'nomina',
  element: 'nomina12:Nomina',
  prefix: 'nomina12',
  namespace: 'http://www.sat.gob.mx/nomina12',
  schemaLocation: 'http://www.sat.gob.mx/sitio_internet/cfd/nomina/nomina12.xsd',
  // One fixed concepto worth percepciones + otros pagos, deducciones as its Descuento.
  kind: {
    tipo: 'N',
    amounts(nomina) {
      const { subTotal, descuento, total } = nominaComprobanteAmounts(nomina);
      return { subTotal, descuento, total, conceptos: [{ ...fixedConcepto('84111505', 'Pago de nómina', subTotal), descuento }] };
    },
  },
  prepare(nomina, { receptor, receptorField, emisor, fecha }, _context, fail) {
    if (receptor.rfc.length !== 13) fail(`${receptorField}.rfc`, 'a Nómina is issued to a worker: a persona física with a 13-character RFC', 'NOM8');
    return prepareNomina(nomina, { emisorRfc: emisor.rfc, receptorRfc: receptor.rfc, fecha }, fail);
  },
  node: nominaNode,
  cadena: NOMINA_12,
  pdf: { render: renderNomina, totals: { tipoDeComprobante: 'N', rows: nominaTotals } },
  summary: (m) => ({
    total_percepciones: m.totalPercepciones?.toString(),
    total_deducciones: m.totalDeducciones?.toString(),
    total_otros_pagos: m.totalOtrosPagos?.toString(),
  }),
};
