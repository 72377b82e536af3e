import type { Motivo, SatStatus } from '../cfdi/cancellation.ts';
import type { Tfd } from '../cfdi/tfd.ts';

/**
 * What a failed stamping attempt means for the document, which decides what happens next:
 * - `definitive`: the document is wrong (301–306, 308, 401–403, CFDI40xxx…): never retried, never sent elsewhere;
 * - `duplicate`: this PAC stamped it before (307 and kin) and did not give the earlier stamp back yet: ask the same
 *   PAC again, never another one;
 * - `provider`: nothing was stamped, the PAC is the problem (refused before the request left, our credentials,
 *   quota, a synchronous "service unavailable"): another PAC may stamp it at once;
 * - `ambiguous`: the PAC may have stamped it (a timeout after the body left, a 5xx or 429 without a body, a reply
 *   that is not its format): only the same PAC, with the same bytes, for a bounded window.
 */
export type StampFailureClass = 'definitive' | 'duplicate' | 'provider' | 'ambiguous';
export type StampFailure =
  | { ok: false; class: 'definitive' | 'duplicate'; code: string; message: string }
  | { ok: false; class: 'provider' | 'ambiguous'; message: string };

/** A stamping provider. The sandbox simulator and the live HTTP adapters implement it. */
export type StampResult = { ok: true; xml: string; tfd: Tfd } | StampFailure;

export const SANDBOX_SCENARIOS = ['pac_unavailable', 'pac_slow', 'pac_rejected'] as const;
export type SandboxScenario = (typeof SANDBOX_SCENARIOS)[number];

/** Test mode only: how the simulated receiver answers a cancellation (X-Sandbox-Scenario on the cancel request). */
export const CANCEL_SCENARIOS = ['cancel_pending_accept', 'cancel_rejected', 'cancel_expired'] as const;
export type CancelScenario = (typeof CANCEL_SCENARIOS)[number];

export interface StampOptions {
  /**
   * Whose document it is. A PAC keeps its accounts' stamps apart; the sandbox serves every tenant, so it derives the
   * UUID from the tenant too (SAT's public test CSD is shared). Live providers know their account from credentials.
   */
  tenantId: string;
  /** Test mode only: force an outcome of this attempt (X-Sandbox-Scenario). */
  scenario?: SandboxScenario;
}

/** What identifies a stamped CFDI to SAT's consultation service (the QR expression's parts). */
export interface CfdiQuery {
  uuid: string;
  rfcEmisor: string;
  rfcReceptor: string;
  total: string;
  sello: string;
}

export interface CancelRequest extends CfdiQuery {
  motivo: Motivo;
  folioSustitucion?: string;
  /** The Cancelacion document signed with the issuer's CSD (docs/sat-rules.md §6.4). */
  signedXml: string;
  /** Whether the rules make the receiver accept (the sandbox answers accordingly). */
  requiresAcceptance: boolean;
}

export type CancelResult =
  | { ok: true; acuseXml: string; estatusUuid: string; status?: SatStatus }
  | { ok: false; retryable: true; message: string }
  | { ok: false; retryable: false; code: string; message: string };

/** A CFDI de Retenciones' cancellation (SAT's cancelacionretencion): its own signed request, no receiver's acceptance. */
export interface RetencionCancelRequest {
  uuid: string;
  rfcEmisor: string;
  /** Whose retención it is: the sandbox serves every test tenant. */
  tenantId: string;
  motivo: Motivo;
  folioSustitucion?: string;
  signedXml: string;
}

/** Where a retención stands at SAT: Vigente, Cancelado (since `fechaCancelacion`) or No Encontrado. */
export interface RetencionSatStatus {
  estado: 'Vigente' | 'Cancelado' | 'No Encontrado';
  estatusCancelacion: string | null;
  fechaCancelacion: string | null;
}

export type StatusResult = { ok: true; status: SatStatus } | { ok: false; retryable: true; message: string };

/** What SAT's verification page for Retenciones is asked: the UUID and both RFCs (none for a receptor Extranjero). */
export interface RetencionQuery {
  uuid: string;
  rfcEmisor: string;
  rfcReceptor: string | null;
}

export type RetencionStatusResult = { ok: true; status: RetencionSatStatus } | { ok: false; retryable: true; message: string };

/**
 * Stamping the same sealed document again must return the same stamp (PACs answer a duplicate with the earlier
 * TFD): that is what makes a retry after a lost response safe. Cancelling the same UUID again likewise returns the
 * request already made (SAT: "previamente cancelado").
 */
export interface Pac {
  /** The registry's name of this provider (`sandbox`, `sw`, `finkok`): recorded on every CFDI it stamps. */
  readonly name: string;
  /**
   * Stamps in this process without I/O (the sandbox): the issuing transaction stamps too and commits the invoice
   * already vigente, one commit instead of two and no job. A provider over the network leaves it unset.
   */
  readonly inProcess?: boolean;
  /**
   * Stamps a sealed CFDI 4.0 or a sealed Retenciones 2.0, told apart by the root element: a PAC stamps retentions
   * through another service of its own, which the adapter chooses. The TFD comes back in the document's Complemento.
   */
  stamp(sealedXml: string, options: StampOptions): Promise<StampResult>;
  /**
   * This very document's (CFDI or Retenciones) earlier stamp, asked without stamping it (Finkok's `stamped`): after a failover, whether the
   * PAC left behind stamped it too. Undefined: it has none (yet). Unset on a PAC that cannot be asked (SW: only by UUID).
   */
  recover?(sealedXml: string): Promise<StampResult | undefined>;
  /** Sends a signed cancellation request. `status`, when the provider knows it already, is where it stands. */
  cancel(request: CancelRequest, options?: { scenario?: CancelScenario }): Promise<CancelResult>;
  /** SAT's consultation (ConsultaCFDIService) for a stamped CFDI. */
  status(query: CfdiQuery): Promise<StatusResult>;
  /**
   * Cancels a stamped Retenciones 2.0; `ok` means SAT cancelled it (no acceptance flow: docs/decisions.md). Unset on a
   * provider this service does not ask about Retenciones.
   */
  cancelRetencion?(request: RetencionCancelRequest): Promise<CancelResult>;
}

/** One environment variable of a live PAC; `legacy`: an older name read when the new one is unset. */
export interface PacSetting {
  env: string;
  url?: boolean;
  legacy?: string;
}

/**
 * A live PAC as the registry (src/pac/registry.ts) knows it: its name in PACS, its settings (all required when it is
 * listed) and how it is built from their values, keyed by the variables' names.
 */
export interface PacEntry {
  name: string;
  settings: readonly PacSetting[];
  build(settings: Readonly<Record<string, string>>, shared: { satConsultaUrl?: string }): Pac;
}
