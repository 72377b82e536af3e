/**
 * What a mock PAC stamped: one record per sealed document (its Sello) with the UUID it got. The mocks of every PAC keep
 * one, so a test counts the UUIDs each sealed document got across PACs (at most one is the invariant).
 */
export interface StampRecord {
  pac: string;
  sello: string;
  uuid: string;
  xml: string;
  stampedAt: number;
  /** From when the PAC's recovery calls find it (Finkok's `stamped` lags its `stamp`). */
  visibleAt: number;
}

export class MockLedger {
  readonly records: StampRecord[] = [];
  private readonly bySello = new Map<string, StampRecord>();

  constructor(readonly pac: string) {}

  find(sello: string): StampRecord | undefined {
    return this.bySello.get(sello);
  }

  findUuid(uuid: string): StampRecord | undefined {
    return this.records.find((r) => r.uuid === uuid);
  }

  add(record: Omit<StampRecord, 'pac'>): StampRecord {
    const r = { pac: this.pac, ...record };
    this.records.push(r);
    this.bySello.set(r.sello, r);
    return r;
  }
}

/** Every UUID each sealed document got, across the given ledgers: a Sello with two is a document stamped twice. */
export function uuidsPerDocument(...ledgers: MockLedger[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const l of ledgers) for (const r of l.records) out.set(r.sello, [...(out.get(r.sello) ?? []), `${r.pac}:${r.uuid}`]);
  return out;
}

/** SAT's ConsultaCFDIService reply, as the mocks answer it (Estado by what they know of the UUID). */
export function consultaReply(s: { Estado: string; EsCancelable: string; EstatusCancelacion: string }): string {
  return (
    '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><ConsultaResponse xmlns="http://tempuri.org/">' +
    '<ConsultaResult xmlns:a="http://schemas.datacontract.org/2004/07/Sat.Cfdi.Negocio.ConsultaCfdi.Servicio" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">' +
    `<a:CodigoEstatus>S - Comprobante obtenido satisfactoriamente.</a:CodigoEstatus><a:EsCancelable>${s.EsCancelable}</a:EsCancelable>` +
    `<a:Estado>${s.Estado}</a:Estado><a:EstatusCancelacion>${s.EstatusCancelacion}</a:EstatusCancelacion><a:ValidacionEFOS>200</a:ValidacionEFOS>` +
    '</ConsultaResult></ConsultaResponse></s:Body></s:Envelope>'
  );
}

/**
 * What a mock PAC answered one stamping request of a document (or a recovery call), from its side: `stamped` (a stamp
 * or an earlier one given back), `duplicate` (307 without the stamp; a recovery call that did not find it),
 * `provider` (nothing stamped: quota, credentials), `ambiguous` (a non-XML 502, a Fault, a request held unanswered),
 * `definitive` (a data error). `answeredAt` is unset while a held request has no answer.
 */
export type MockAnswer = 'stamped' | 'duplicate' | 'provider' | 'ambiguous' | 'definitive';

export interface DocumentRequest {
  pac: string;
  operation: string;
  /** The Sello of the document it was about ('' when the request carried none that parses). */
  sello: string;
  at: number;
  answeredAt?: number;
  answer?: MockAnswer;
  /** The answer gave back a stamp made before this request (307 with the XML, `stamped`, `query_pending`). */
  recovered?: boolean;
  /** Held without an answer (timeout_after_stamp) until the mock goes down or closes. */
  held?: boolean;
}

/** The per-document request log of a mock PAC, with times: which PAC saw a document when, and what it answered. */
export class RequestLog {
  readonly entries: DocumentRequest[] = [];

  constructor(readonly pac: string) {}

  open(operation: string, sello: string): DocumentRequest {
    const entry: DocumentRequest = { pac: this.pac, operation, sello, at: Date.now() };
    this.entries.push(entry);
    return entry;
  }

  /** Records the answer of `entry` now and returns `response`. */
  static answer(entry: DocumentRequest, answer: MockAnswer, response: Response, recovered = false): Response {
    entry.answer = answer;
    entry.answeredAt = Date.now();
    if (recovered) entry.recovered = true;
    return response;
  }
}
