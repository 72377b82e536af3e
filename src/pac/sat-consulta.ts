import { XMLParser } from 'fast-xml-parser';
import type { SatStatus } from '../cfdi/cancellation.ts';
import { verificationUrl } from '../cfdi/qr.ts';
import { escapeXml } from '../cfdi/xml.ts';
import type { CfdiQuery, StatusResult } from './types.ts';

const SAT_CONSULTA_URL = 'https://consultaqr.facturaelectronica.sat.gob.mx/ConsultaCFDIService.svc';

const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, trimValues: true });

/**
 * SAT's ConsultaCFDIService (SOAP 1.1; docs/sat-rules.md §6.3): the QR expression in, CodigoEstatus, Estado, EsCancelable,
 * EstatusCancelacion and ValidacionEFOS out (read by local name). Network errors, timeouts, non-200 and replies
 * without a result are retryable: the caller asks again later.
 */
export async function consultSat(query: CfdiQuery, o: { url?: string; fetch?: typeof fetch; timeoutMs?: number } = {}): Promise<StatusResult> {
  const body =
    '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><c:Consulta xmlns:c="http://tempuri.org/">' +
    `<c:expresionImpresa>${escapeXml(verificationUrl(query))}</c:expresionImpresa></c:Consulta></s:Body></s:Envelope>`;
  let text: string;
  try {
    const res = await (o.fetch ?? fetch)(o.url ?? SAT_CONSULTA_URL, {
      method: 'POST',
      headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '"http://tempuri.org/IConsultaCFDIService/Consulta"' },
      body,
      signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
    });
    text = await res.text();
    if (res.status !== 200) return { ok: false, retryable: true, message: `SAT consultation answered HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, retryable: true, message: `SAT consultation unreachable: ${err instanceof Error ? err.message : String(err)}` };
  }
  let result: Record<string, unknown> | undefined;
  try {
    result = parser.parse(text)?.Envelope?.Body?.ConsultaResponse?.ConsultaResult;
  } catch {
    result = undefined;
  }
  if (!result || typeof result !== 'object') return { ok: false, retryable: true, message: 'SAT consultation reply has no ConsultaResult' };
  const field = (name: string) => (typeof result[name] === 'string' ? (result[name] as string) : '');
  return {
    ok: true,
    status: {
      CodigoEstatus: field('CodigoEstatus'),
      Estado: field('Estado') as SatStatus['Estado'],
      EsCancelable: field('EsCancelable') as SatStatus['EsCancelable'],
      EstatusCancelacion: field('EstatusCancelacion') as SatStatus['EstatusCancelacion'],
      ValidacionEFOS: field('ValidacionEFOS'),
    },
  };
}
