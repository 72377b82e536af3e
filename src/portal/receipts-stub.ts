// TEMPORARY: the receipts service's interface (issue 24 design) until src/invoices/receipts lands; deleted at rebase.
import type { ReceptorInput } from '../cfdi/input.ts';
import type { Db } from '../db/client.ts';
import type { Environment } from '../db/schema/index.ts';
import type { Actor } from '../lib/backend.ts';
import { conflict, notFound } from '../lib/service-error.ts';
import { issueCfdi, type CfdiDeps } from '../invoices/cfdis/service.ts';
import type { CfdiRequest } from '../invoices/cfdis/schemas.ts';

export interface PortalReceipt {
  id: string;
  tenantId: string;
  environment: Environment;
  folio: string;
  fecha: string;
  total: string;
  status: 'open' | 'invoiced' | 'cancelled';
  invoicedBy: 'self' | 'global' | null;
  cfdiId: string | null;
  expiresAt: string;
  conceptos: { descripcion: string; cantidad: string; importe: string }[];
}

export type ReceiptDeps = CfdiDeps;

type Sale = Pick<CfdiRequest, 'forma_pago' | 'conceptos'>;
const store = new Map<string, PortalReceipt & { request: Sale }>();

export function stubReceipt(receipt: PortalReceipt, key: string, request: Sale) {
  store.set(key, { ...receipt, request });
}

export async function findReceiptByKey(_db: Db, tenantId: string, key: string): Promise<PortalReceipt | undefined> {
  const r = store.get(key);
  return r && r.tenantId === tenantId ? r : undefined;
}

export async function invoiceReceipt(deps: ReceiptDeps, actor: Actor, receiptId: string, body: { receptor: ReceptorInput; email_to?: string[] }) {
  const r = [...store.values()].find((x) => x.id === receiptId && x.tenantId === actor.tenantId);
  if (!r) throw notFound('Receipt');
  if (r.status !== 'open') throw conflict(`Receipt ${r.id} is ${r.status}`);
  if (r.expiresAt < deps.now().toISOString()) throw conflict(`Receipt ${r.id} expired`);
  const { body: cfdi } = await issueCfdi(deps, actor, { tipo: 'I', ...r.request, receptor: body.receptor, email_to: body.email_to } as CfdiRequest);
  r.status = 'invoiced';
  r.invoicedBy = 'self';
  r.cfdiId = cfdi.id;
  return cfdi;
}
