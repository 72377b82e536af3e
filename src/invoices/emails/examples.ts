import type { BodyExamples } from '../../lib/schemas.ts';
import type { CfdiEmailRequest } from './schemas.ts';

/** POST /cfdis/{id}/email: to given addresses, or (empty body) to the client the CFDI was issued to with receptor_id. */
export const CfdiEmailExamples: BodyExamples<CfdiEmailRequest> = {
  direcciones: { summary: 'To these addresses', value: { to: ['cuentas-por-pagar@example.com', 'contabilidad@example.com'] } },
  cliente: {
    summary: "To the client's email",
    description: 'For a CFDI issued with receptor_id whose client has an email (else 400 naming `to`)',
    value: {},
  },
};
