import { newId } from '../../src/lib/ids.ts';
import { stubReceipt } from '../../src/portal/receipts-stub.ts';
import { concepto, type Issuer } from '../helpers.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** An open receipt of the issuer's (test environment) and its self-invoice key and link. */
export async function openReceipt(issuer: Issuer, origin = 'http://localhost') {
  const key = Array.from(crypto.getRandomValues(new Uint8Array(26)), (b) => CROCKFORD[b % 32]).join('');
  const id = newId('rcpt');
  const now = new Date();
  stubReceipt(
    {
      id,
      tenantId: issuer.tenant.id,
      environment: 'test',
      folio: `T-${id.slice(-6)}`,
      fecha: now.toISOString().slice(0, 19),
      total: '116.00',
      status: 'open',
      invoicedBy: null,
      cfdiId: null,
      expiresAt: new Date(now.getTime() + 30 * 86_400_000).toISOString(),
      conceptos: [{ descripcion: 'Servicio', cantidad: '1', importe: '100.00' }],
    },
    key,
    { forma_pago: '01', conceptos: [concepto()] } as never,
  );
  return { id, key, url: `${origin}/portal/${issuer.tenant.id}?clave=${key}` };
}
