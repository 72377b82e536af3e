import { groupDigits, money, printedDate } from '../../cfdi/pdf/format.ts';
import { serieFolio } from '../../cfdi/pdf/sections.ts';
import { child, parseXml } from '../../cfdi/xml.ts';

/** What the customer is sent, by TipoDeComprobante. */
const DOCUMENT: Record<string, string> = {
  I: 'factura',
  E: 'nota de crédito',
  P: 'comprobante de pago',
  N: 'recibo de nómina',
  T: 'comprobante de traslado',
};

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** The values the message quotes, read from the stamped XML (as the PDF does): what the customer receives is what they read. */
function factsOf(xml: Buffer) {
  const root = parseXml(xml.toString('utf8'));
  const a = root.attrs;
  const tfd = child(child(root, 'cfdi:Complemento') ?? root, 'tfd:TimbreFiscalDigital');
  const moneda = a.Moneda ?? 'MXN';
  const amount = money(groupDigits(a.Total ?? '0'), moneda);
  return {
    document: DOCUMENT[a.TipoDeComprobante ?? ''] ?? 'comprobante',
    folio: serieFolio(a.Serie, a.Folio),
    total: moneda === 'MXN' ? `${amount} MXN` : amount,
    fecha: printedDate(a.Fecha),
    uuid: tfd?.attrs.UUID ?? '',
    receptor: child(root, 'cfdi:Receptor')?.attrs.Nombre ?? '',
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The message in Spanish: the tenant's name, the folio, the total and the folio fiscal (UUID), what is attached and
 * how to verify it with SAT; in the HTML part the tenant's logo (the attachment with Content-ID `logo`) and accent
 * colour, as on its PDF.
 */
export function composeCfdiEmail(o: {
  xml: Buffer;
  tenantName: string;
  accentColor?: string;
  hasLogo: boolean;
  sandbox: boolean;
  cancelled: boolean;
}): EmailContent {
  const f = factsOf(o.xml);
  const Document = f.document[0]!.toUpperCase() + f.document.slice(1);
  const subject = `${o.cancelled ? 'Cancelado: ' : ''}${Document}${f.folio ? ` ${f.folio.replace(' · ', ' ')}` : ''} de ${o.tenantName}`;
  const intro = o.cancelled
    ? `${o.tenantName} le envía su ${f.document}. Este comprobante fue cancelado ante el SAT: se adjuntan el XML, su representación impresa (PDF) y el acuse de cancelación del SAT.`
    : `${o.tenantName} le envía su ${f.document}. Se adjuntan el XML (el comprobante fiscal) y su representación impresa (PDF).`;
  const rows: [string, string][] = [
    ...(f.folio ? [['Serie y folio', f.folio] as [string, string]] : []),
    ['Fecha', f.fecha],
    ['Total', f.total],
    ['Folio fiscal (UUID)', f.uuid],
  ];
  const notes = [
    ...(o.sandbox ? ['Comprobante de prueba (sandbox): sin validez fiscal.'] : []),
    'Puede verificar el comprobante en el portal del SAT: https://verificacfdi.facturaelectronica.sat.gob.mx',
  ];
  const greeting = f.receptor ? `Estimado(a) ${f.receptor}:` : 'Estimado(a) cliente:';
  const text = [greeting, '', intro, '', ...rows.map(([k, v]) => `${k}: ${v}`), '', ...notes, '', `Atentamente,`, o.tenantName, ''].join('\n');

  const colour = o.accentColor && /^#[0-9a-fA-F]{6}$/.test(o.accentColor) ? o.accentColor : '#1f4e79';
  const html = `<!DOCTYPE html>
<html lang="es"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f4f4;font-family:Arial,Helvetica,sans-serif;color:#222">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="background:#fff;border-top:6px solid ${colour}">
<tr><td style="padding:24px">${o.hasLogo ? `<img src="cid:logo" alt="${escapeHtml(o.tenantName)}" style="max-height:64px;max-width:240px;display:block;margin-bottom:16px">` : ''}<h1 style="font-size:20px;margin:0;color:${colour}">${escapeHtml(o.tenantName)}</h1></td></tr>
<tr><td style="padding:0 24px">
<p>${escapeHtml(greeting)}</p>
<p>${escapeHtml(intro)}</p>
<table role="presentation" cellpadding="6" cellspacing="0" style="border-collapse:collapse;margin:16px 0">
${rows.map(([k, v]) => `<tr><td style="color:#666;border-bottom:1px solid #eee">${escapeHtml(k)}</td><td style="border-bottom:1px solid #eee"><strong>${escapeHtml(v)}</strong></td></tr>`).join('\n')}
</table>
${notes.map((n) => `<p style="font-size:13px;color:#666">${escapeHtml(n)}</p>`).join('\n')}
<p>Atentamente,<br>${escapeHtml(o.tenantName)}</p>
</td></tr>
<tr><td style="padding:12px 24px;background:${colour};color:#fff;font-size:12px">${escapeHtml(f.document)} ${escapeHtml(f.uuid)}</td></tr>
</table></td></tr></table>
</body></html>
`;
  return { subject, text, html };
}
