import { Dec } from '../../../decimal.ts';
import type { ComercioExteriorInput } from '../input.ts';
import type { ComercioExteriorContext, ComercioExteriorModel } from '../model.ts';
import { halfUnit, type Rates } from './amounts.ts';
import { at, type Checks } from './checks.ts';

/** The generic RFC of a foreign receptor. */
const RFC_EXTRANJERO = 'XEXX010101000';
/** c_MotivoTraslado 02: relocating one's own goods (the receptor may be the issuer itself). */
const REUBICACION = '02';
/** c_MotivoTraslado 05: goods of third parties (their owners are listed). */
const PROPIEDAD_DE_TERCEROS = '05';
/** c_MotivoTraslado 01: goods invoiced before; c_TipoRelacion 05: "Traslados de mercancías facturados previamente". */
const FACTURADAS = '01';
const RELACION_TRASLADO_FACTURADO = '05';

type Header = Pick<
  ComercioExteriorModel,
  'motivoTraslado' | 'claveDePedimento' | 'certificadoOrigen' | 'numCertificadoOrigen' | 'numeroExportadorConfiable' | 'incoterm' | 'observaciones'
>;

/** The comprobante this complement sits on (tipo, exportación, receptor, relations) and the node's own attributes. */
export function prepareHeader(req: ComercioExteriorInput, ctx: ComercioExteriorContext, c: Checks): Header {
  if (ctx.tipo !== 'I' && ctx.tipo !== 'T') c.fail('comercio_exterior', `is issued on an Ingreso (I) or a Traslado (T), not on tipo ${ctx.tipo}`, 'CCE145');
  if (ctx.exportacion !== '02') c.fail('exportacion', `must be 02 (definitive export) with comercio_exterior, not ${ctx.exportacion}`, 'CCE145');

  const motivo = req.motivo_traslado;
  if (ctx.tipo === 'T' && motivo === undefined) c.fail(at('motivo_traslado'), 'is required on a Traslado (T)', 'CCE146');
  if (ctx.tipo !== 'T' && motivo !== undefined) c.fail(at('motivo_traslado'), 'is sent on a Traslado (T) only', 'CCE113');
  if (motivo !== undefined) c.catalog('motivo_traslado', 'c_MotivoTraslado', motivo);
  const owners = req.propietario?.length ?? 0;
  if (ctx.tipo === 'T' && motivo === PROPIEDAD_DE_TERCEROS) {
    if (owners === 0) c.fail(at('propietario'), 'is required on a Traslado with motivo_traslado 05 (goods of third parties)', 'CCE147');
  } else if (owners > 0) c.fail(at('propietario'), 'is sent only on a Traslado with motivo_traslado 05 (goods of third parties)', 'CCE148');
  if (motivo === FACTURADAS && !ctx.relacionados.some((r) => r.tipoRelacion === RELACION_TRASLADO_FACTURADO && r.uuids.length > 0))
    c.fail('cfdi_relacionados', 'motivo_traslado 01 ships goods invoiced before: relate those invoices with tipo_relacion 05', 'CCE157');
  if (!(ctx.tipo === 'T' && motivo === REUBICACION) && ctx.receptor.rfc !== RFC_EXTRANJERO)
    c.fail(
      `${ctx.receptorField ?? 'receptor'}.rfc`,
      `must be the foreign receptor's ${RFC_EXTRANJERO} (only a Traslado with motivo_traslado 02 may name a Mexican RFC)`,
      'CCE150',
    );

  const claveDePedimento = req.clave_de_pedimento ?? 'A1';
  c.catalog('clave_de_pedimento', 'c_ClavePedimento', claveDePedimento);
  const certificadoOrigen = req.certificado_origen === 1 ? '1' : '0';
  if (certificadoOrigen === '0' && req.num_certificado_origen !== undefined)
    c.fail(at('num_certificado_origen'), 'must not be sent when certificado_origen is 0 (this CFDI is not a certificate of origin)', 'CCE160');
  if (req.incoterm !== undefined) c.catalog('incoterm', 'c_INCOTERM', req.incoterm);

  // The trusted exporter number (EU agreement) needs a receptor or destinatario in the European Union.
  if (req.numero_exportador_confiable !== undefined) {
    const paises = [req.receptor?.domicilio?.pais ?? ctx.receptor.residenciaFiscal, ...(req.destinatario ?? []).flatMap((d) => d.domicilio.map((x) => x.pais))];
    if (!paises.some((p) => p !== undefined && c.row('c_Pais', p)?.agrupaciones === 'Unión Europea'))
      c.fail(at('numero_exportador_confiable'), 'is sent only when the receptor or a destinatario is in the European Union (c_Pais agrupación)', 'CCE161');
  }
  return {
    motivoTraslado: motivo,
    claveDePedimento,
    certificadoOrigen,
    numCertificadoOrigen: req.num_certificado_origen,
    numeroExportadorConfiable: req.numero_exportador_confiable,
    incoterm: req.incoterm,
    observaciones: req.observaciones,
  };
}

/**
 * The two exchange rates: the comprobante's TipoCambio (1, exact, on MXN; XXX carries no amounts to convert) and
 * TipoCambioUSD (the comprobante's own on a CFDI in USD when not sent). Undefined when TipoCambioUSD is missing.
 */
export function exchangeRates(req: ComercioExteriorInput, ctx: ComercioExteriorContext, c: Checks): Rates | undefined {
  const sent = req.tipo_cambio_usd ?? (ctx.moneda === 'USD' ? ctx.tipoCambio : undefined);
  if (sent === undefined) {
    c.fail(at('tipo_cambio_usd'), 'is required: pesos per US dollar (the comprobante is not in USD)', 'CCE159');
    return undefined;
  }
  const tipoCambioUSD = Dec.parse(sent);
  if (tipoCambioUSD.isZero()) {
    c.fail(at('tipo_cambio_usd'), 'must be greater than 0', 'CCE159');
    return undefined;
  }
  const exact = ctx.moneda === 'MXN' || ctx.moneda === 'XXX' || ctx.tipoCambio === undefined;
  const tipoCambio = exact ? Dec.parse('1') : Dec.parse(ctx.tipoCambio!);
  const tipoCambioTolerance = exact ? Dec.ZERO : halfUnit(tipoCambio.decimals);
  return { tipoCambio, tipoCambioTolerance, tipoCambioUSD };
}
