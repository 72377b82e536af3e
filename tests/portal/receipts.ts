import { concepto, type Issuer } from '../helpers.ts';

/** An open receipt of the issuer's (POST /receipts, test environment) and its self-invoice key and link, at `origin`. */
export async function openReceipt(issuer: Issuer, origin = 'http://localhost') {
  const res = await issuer.api('POST', '/receipts', { body: { forma_pago: '01', conceptos: [concepto()] } as never });
  if (res.status !== 201) throw new Error(`set-up: POST /receipts → ${res.status} ${res.text}`);
  const link = new URL((res.json as { self_invoice_url: string }).self_invoice_url);
  const key = link.searchParams.get('clave')!;
  return { id: (res.json as { id: string }).id, key, url: `${origin}${link.pathname}${link.search}` };
}
