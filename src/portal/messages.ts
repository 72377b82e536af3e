import { catalogEntry } from '../catalogs/index.ts';
import { printedDate } from '../cfdi/pdf/format.ts';
import { wallClock } from '../cfdi/time.ts';
import type { ErrorDetail } from '../lib/service-error.ts';

/** The form's fields as the customer reads them. */
const LABELS: Record<string, string> = {
  clave: 'Clave del ticket',
  rfc: 'RFC',
  nombre: 'Nombre o razón social',
  domicilio_fiscal: 'Código postal',
  regimen_fiscal: 'Régimen fiscal',
  uso_cfdi: 'Uso del CFDI',
  email: 'Correo electrónico',
};

export interface PortalReceptor {
  rfc: string;
  nombre: string;
  domicilio_fiscal: string;
  regimen_fiscal: string;
  uso_cfdi: string;
}

const describe = (catalog: 'c_RegimenFiscal' | 'c_UsoCFDI', key: string) => {
  const row = catalogEntry(catalog, key);
  return row ? `${key} (${row.descripcion?.replace(/\.$/, '')})` : key;
};

/**
 * SAT's receptor rules (Matriz de errores del Anexo 20, CFDI40143–CFDI40161) in the customer's words: what to fix
 * and where, by rule code; a problem without a code keeps its field and says to check it.
 */
function spanishIssue(d: ErrorDetail, r: PortalReceptor): string {
  const persona = r.rfc.length === 12 ? 'una persona moral (RFC de 12 caracteres)' : 'una persona física (RFC de 13 caracteres)';
  switch (d.rule) {
    case 'CFDI40143':
      return `El RFC ${r.rfc} no es válido: revisa que esté escrito como aparece en tu Constancia de Situación Fiscal.`;
    case 'CFDI40144':
    case 'CFDI40145':
      return `El nombre o razón social no coincide con el registrado en el SAT para el RFC ${r.rfc}: escríbelo como aparece en tu Constancia de Situación Fiscal, sin el régimen societario (por ejemplo, sin "S.A. de C.V.").`;
    case 'CFDI40146':
      return 'El nombre "PUBLICO EN GENERAL" solo se usa con el RFC genérico XAXX010101000: escribe tu propio nombre o razón social.';
    case 'CFDI40147':
    case 'CFDI40148':
      return `El código postal ${r.domicilio_fiscal} no está en el catálogo de códigos postales del SAT (c_CodigoPostal), o no es el de tu domicilio fiscal registrado: usa el de tu Constancia de Situación Fiscal.`;
    case 'CFDI40149':
    case 'CFDI40159':
      return 'Con un RFC genérico no se puede facturar en este portal a tu nombre: escribe tu propio RFC.';
    case 'CFDI40157':
      return `El régimen fiscal ${r.regimen_fiscal} no está en el catálogo de regímenes del SAT (c_RegimenFiscal) vigente.`;
    case 'CFDI40158':
      return `El régimen fiscal ${describe('c_RegimenFiscal', r.regimen_fiscal)} no corresponde a ${persona}: elige el régimen que aparece en tu Constancia de Situación Fiscal.`;
    case 'CFDI40160':
      return `El uso del CFDI ${r.uso_cfdi} no está en el catálogo de usos del SAT (c_UsoCFDI) vigente.`;
    case 'CFDI40161': {
      const uso = catalogEntry('c_UsoCFDI', r.uso_cfdi);
      const allowed = (uso?.regimenes_receptor ?? '').split(';').filter(Boolean);
      if (uso && allowed.length && !allowed.includes(r.regimen_fiscal) && catalogEntry('c_RegimenFiscal', r.regimen_fiscal))
        return `El uso del CFDI ${describe('c_UsoCFDI', r.uso_cfdi)} no está permitido para el régimen fiscal ${describe('c_RegimenFiscal', r.regimen_fiscal)}: el SAT solo lo admite para los regímenes ${allowed.sort().join(', ')}. Elige otro uso, por ejemplo S01 (Sin efectos fiscales).`;
      return `El uso del CFDI ${describe('c_UsoCFDI', r.uso_cfdi)} no aplica a ${persona}: elige otro uso.`;
    }
    default:
      return FIELD_ISSUES[d.field.split('.').at(-1) ?? ''] ?? `Revisa este dato: ${d.issue}`;
  }
}

/** What a problem without a rule code means on each field of the form (its format, mostly). */
const FIELD_ISSUES: Record<string, string> = {
  rfc: 'El RFC no tiene el formato del SAT: 3 letras (persona moral) o 4 (persona física), tu fecha AAMMDD y 3 caracteres de homoclave.',
  nombre: 'Escribe tu nombre o razón social como aparece en tu Constancia de Situación Fiscal (hasta 300 caracteres, sin caracteres especiales).',
  domicilio_fiscal: 'Escribe el código postal de 5 dígitos de tu domicilio fiscal.',
  regimen_fiscal: 'Elige tu régimen fiscal de la lista.',
  uso_cfdi: 'Elige el uso del CFDI de la lista.',
};

/** Each problem of an invoicing attempt, on the portal's own field names, in Spanish, keeping SAT's rule code. */
export function portalDetails(details: readonly ErrorDetail[], receptor: PortalReceptor): ErrorDetail[] {
  return details.map((d) => {
    const name = d.field.split('.').at(-1) ?? d.field;
    const field = name in LABELS && name !== 'clave' && name !== 'email' ? `receptor.${name}` : d.field;
    return d.rule ? { field, issue: spanishIssue(d, receptor), rule: d.rule } : { field, issue: spanishIssue(d, receptor) };
  });
}

/**
 * A ticket's deadline as its customer reads it: the date in the issuer's time zone, dd/mm/aaaa as the PDF prints
 * dates (the instant is the month's last second there, which in UTC is already the next day).
 */
const localDeadline = (expiresAt: string, timeZone: string): string => printedDate(wallClock(new Date(expiresAt), timeZone).slice(0, 10));

/** Until when an open ticket can be invoiced, for the page. */
export const deadlineNotice = (expiresAt: string, timeZone: string): string => `Puedes facturarlo hasta el ${localDeadline(expiresAt, timeZone)}.`;

/** Why a ticket cannot be invoiced (any more), for the page and the JSON answers; undefined when it can be. */
export function blockedReason(r: { status: string; invoicedBy: string | null; expiresAt: string }, now: Date, timeZone: string): string | undefined {
  if (r.status === 'invoiced' && r.invoicedBy === 'global')
    return (
      'Este ticket ya se incluyó en la factura global a público en general (RFC XAXX010101000) que el comercio emitió por ese periodo. ' +
      'Una venta amparada por la factura global ya tiene su CFDI, así que las reglas del SAT no permiten facturarla otra vez por separado ' +
      'a tu nombre (Resolución Miscelánea Fiscal, regla 2.7.1.21: la factura global ampara las operaciones por las que el cliente no pidió ' +
      'comprobante). Si necesitas la factura, pide al comercio que la revise.'
    );
  if (r.status === 'invoiced') return 'Este ticket ya fue facturado: cada ticket se factura una sola vez.';
  if (r.status === 'cancelled') return 'El comercio canceló este ticket: ya no se puede facturar.';
  if (r.expiresAt <= now.toISOString())
    return `El plazo para facturar este ticket venció el ${localDeadline(r.expiresAt, timeZone)}. Pide la factura directamente al comercio.`;
  return undefined;
}
