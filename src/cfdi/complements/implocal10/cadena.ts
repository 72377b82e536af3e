import { attrs, each, type Step } from '../../cadena-steps.ts';

/**
 * The complement's steps, in implocal.xslt's order (`version`, the totals, every RetencionesLocales, then every
 * TrasladosLocales), for cadena.ts's complement templates: the registry of the complement modules will list them.
 */
export const IMPUESTOS_LOCALES_10: Step[] = [
  ...attrs('version TotaldeRetenciones TotaldeTraslados'),
  each('implocal:RetencionesLocales', attrs('ImpLocRetenido TasadeRetencion Importe')),
  each('implocal:TrasladosLocales', attrs('ImpLocTrasladado TasadeTraslado Importe')),
];
