import { sealComprobante } from '../../cfdi/build.ts';
import type { CsdSigner } from '../../cfdi/csd.ts';
import type { ReceptorInput } from '../../cfdi/input.ts';
import type { ComprobanteModel } from '../../cfdi/model.ts';
import { prepareInvoice, type PrepareContext } from '../../cfdi/prepare.ts';
import { PermanentJobError } from '../../jobs/queue.ts';
import type { CfdiRequest } from './schemas.ts';

/**
 * What an invoice is sealed from when its folio was taken in a transaction of its own (issuing where transactions
 * write side by side: docs/decisions.md, "The folio's transaction without the seal"): prepareInvoice's inputs but the
 * folio (written on the invoice's row after the draft), carried by its stamping job, so that a job can seal it if the
 * process that took the folio died before sealing. The same
 * inputs give the same model, and the same model and CSD the same bytes (RSA PKCS#1 v1.5 is deterministic).
 */
export interface SealDraft {
  request: CfdiRequest;
  emisor: PrepareContext['emisor'];
  receptor: ReceptorInput;
  now: string;
  /** Carta Porte's IdCCP as validation made it (a random one when the request sent none). */
  id_ccp?: string;
  /** Comercio Exterior: the issuer's fiscal address as validation read it from the profile. */
  emisor_domicilio?: PrepareContext['emisorDomicilio'];
}

/** The invoice's folio, from its row: taken in the draft's transaction after the draft was written. */
interface Folio {
  serie: string;
  folio: number;
}

export function sealDraftOf(
  request: CfdiRequest,
  valid: { emisor: SealDraft['emisor'] & { domicilio?: SealDraft['emisor_domicilio'] }; receptor: ReceptorInput; now: Date; model: ComprobanteModel },
): SealDraft {
  const idCcp = valid.model.cartaPorte?.idCcp;
  const { domicilio, ...emisor } = valid.emisor;
  return {
    request,
    emisor,
    receptor: valid.receptor,
    now: valid.now.toISOString(),
    ...(idCcp ? { id_ccp: idCcp } : {}),
    ...(domicilio && request.comercio_exterior ? { emisor_domicilio: domicilio } : {}),
  };
}

/** The model a draft prepares to; a draft that no longer prepares (a catalog changed since) cannot be sealed, ever. */
function modelOfDraft(draft: SealDraft, { serie, folio }: Folio): ComprobanteModel {
  const prepared = prepareInvoice(draft.request, {
    emisor: draft.emisor,
    receptor: draft.receptor,
    now: new Date(draft.now),
    serie,
    folio: String(folio),
    newIdCcp: () => draft.id_ccp ?? '',
    emisorDomicilio: draft.emisor_domicilio,
  });
  if (!prepared.model || prepared.errors.length > 0)
    throw new PermanentJobError(`the invoice no longer passes validation: ${prepared.errors.map((e) => `${e.field} ${e.issue}`).join('; ')}`);
  return prepared.model;
}

/** Seals a draft with the tenant's active CSD: none yet is worth waiting for (a new one uploaded); another issuer's never. */
export async function sealDraft(draft: SealDraft, folio: Folio, signer: CsdSigner | undefined, now: Date): Promise<string> {
  if (!signer?.validAt(now)) throw new Error('no active CSD valid now to seal the invoice with: upload one with POST /csds');
  if (signer.rfc !== draft.emisor.rfc) throw new PermanentJobError(`the active CSD belongs to ${signer.rfc}, not to ${draft.emisor.rfc} (PAC 303)`);
  return (await sealComprobante(modelOfDraft(draft, folio), signer)).xml;
}
