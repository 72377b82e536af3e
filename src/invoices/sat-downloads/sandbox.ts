import { and, eq, gte, inArray, lte, ne } from 'drizzle-orm';
import { zipSync } from 'fflate';
import type { Db } from '../../db/client.ts';
import { cfdiDocuments, cfdis } from '../../db/schema/index.ts';
import type { DescargaMasivaClient, DescargaQuery } from '../../pac/descarga-masiva.ts';

/**
 * Descarga Masiva in test mode (sk_test_): no SAT call. The same client interface the job drives, answered from the
 * sandbox's own stamped test CFDI: issued = the tenant's own, received = any tenant's whose receptor RFC is the
 * tenant's. Stateless: the IdSolicitud carries the query, so a restart loses nothing; every request is accepted and
 * finishes at the first verification with one package (none matching: 5 with 5004, as SAT ends an empty period).
 */
const ATTR = (xml: string, element: string, name: string) => new RegExp(`<(?:\\w+:)?${element}\\b[^>]*?\\s${name}="([^"]*)"`).exec(xml)?.[1] ?? '';
const METADATA_HEADER =
  'Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~EfectoComprobante~Estatus~FechaCancelacion';

interface Held {
  tenantId: string;
  query: DescargaQuery;
}

const encode = (h: Held) => `sandbox-${Buffer.from(JSON.stringify(h)).toString('base64url')}`;
function decode(id: string): Held | undefined {
  if (!id.startsWith('sandbox-')) return undefined;
  try {
    return JSON.parse(Buffer.from(id.slice('sandbox-'.length), 'base64url').toString('utf8')) as Held;
  } catch {
    return undefined;
  }
}

export function sandboxDescargaClient(db: Db, scope: { tenantId: string; rfc: string }): DescargaMasivaClient {
  async function matching(h: Held) {
    const q = h.query;
    const rows = await db
      .select({ xml: cfdiDocuments.xml, status: cfdis.status, updatedAt: cfdis.updatedAt, tipo: cfdis.tipo })
      .from(cfdis)
      .innerJoin(cfdiDocuments, eq(cfdiDocuments.cfdiId, cfdis.id))
      .where(
        and(
          eq(cfdis.environment, 'test'),
          q.direction === 'issued' ? eq(cfdis.tenantId, h.tenantId) : eq(cfdis.receptorRfc, scope.rfc),
          inArray(cfdis.status, ['vigente', 'cancelacion_pendiente', 'cancelado']),
          gte(cfdis.fecha, q.desde),
          lte(cfdis.fecha, q.hasta),
          q.tipo ? eq(cfdis.tipo, q.tipo) : undefined,
          q.direction === 'received' && q.kind === 'xml' ? ne(cfdis.status, 'cancelado') : undefined,
          q.direction === 'issued' && q.rfc ? eq(cfdis.receptorRfc, q.rfc) : undefined,
        ),
      );
    return rows
      .map((r) => ({ ...r, xml: r.xml.toString('utf8') }))
      .filter((r) => !(q.direction === 'received' && q.rfc) || ATTR(r.xml, 'Emisor', 'Rfc') === q.rfc);
  }
  return {
    token: async () => 'sandbox',
    async solicita(query) {
      return { codEstatus: '5000', mensaje: 'Solicitud Aceptada', idSolicitud: encode({ tenantId: scope.tenantId, query }) };
    },
    async verifica(id) {
      const h = decode(id);
      if (!h || h.tenantId !== scope.tenantId) return { codEstatus: '5004', mensaje: 'No se encontró la solicitud', numeroCfdis: 0, paquetes: [] };
      const found = await matching(h);
      const ok = { codEstatus: '5000', mensaje: 'Solicitud Aceptada' };
      if (found.length === 0) return { ...ok, estadoSolicitud: 5, codigoEstadoSolicitud: '5004', numeroCfdis: 0, paquetes: [] };
      return { ...ok, estadoSolicitud: 3, codigoEstadoSolicitud: '5000', numeroCfdis: found.length, paquetes: [`${id}_01`] };
    },
    async descargar(packageId) {
      const id = packageId.replace(/_01$/, '');
      const h = decode(id);
      if (!h || h.tenantId !== scope.tenantId || id === packageId) return { codEstatus: '5004', mensaje: 'No se encontró la información' };
      const found = await matching(h);
      const files: Record<string, Uint8Array> = {};
      const uuid = (xml: string) => ATTR(xml, 'TimbreFiscalDigital', 'UUID').toUpperCase();
      if (h.query.kind === 'xml') for (const r of found) files[`${uuid(r.xml)}.xml`] = Buffer.from(r.xml);
      else {
        const lines = found.map((r) => {
          const cancelled = r.status === 'cancelado';
          return [
            uuid(r.xml),
            ATTR(r.xml, 'Emisor', 'Rfc'),
            ATTR(r.xml, 'Emisor', 'Nombre'),
            ATTR(r.xml, 'Receptor', 'Rfc'),
            ATTR(r.xml, 'Receptor', 'Nombre'),
            ATTR(r.xml, 'TimbreFiscalDigital', 'RfcProvCertif'),
            ATTR(r.xml, 'Comprobante', 'Fecha').replace('T', ' '),
            ATTR(r.xml, 'TimbreFiscalDigital', 'FechaTimbrado').replace('T', ' '),
            ATTR(r.xml, 'Comprobante', 'Total'),
            r.tipo,
            cancelled ? '0' : '1',
            cancelled ? r.updatedAt.slice(0, 19).replace('T', ' ') : '',
          ].join('~');
        });
        files[`${packageId}.txt`] = Buffer.from([METADATA_HEADER, ...lines].join('\r\n') + '\r\n');
      }
      return { codEstatus: '5000', mensaje: 'Solicitud Aceptada', paquete: Buffer.from(zipSync(files)) };
    },
  };
}
