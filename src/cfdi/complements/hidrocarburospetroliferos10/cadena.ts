import { attrs, type Step } from '../../cadena-steps.ts';

/**
 * The complement's steps, in hidrocarburospetroliferos.xslt's order. cadenaoriginal_4_0.xslt applies the templates
 * of a Concepto's ComplementoConcepto children after its CuentaPredial and before its Parte; cadena.ts's CONCEPTO has
 * no such step yet: the registry adds `each('cfdi:ComplementoConcepto', [<complement templates>])` there.
 */
export const HIDROCARBUROS_PETROLIFEROS_10: Step[] = attrs('Version TipoPermiso NumeroPermiso ClaveHYP SubProductoHYP');
