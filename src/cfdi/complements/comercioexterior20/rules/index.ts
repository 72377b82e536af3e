import { Dec, sum } from '../../../decimal.ts';
import type { Fail } from '../../../input.ts';
import type { ComercioExteriorInput } from '../input.ts';
import type { ComercioExteriorContext, ComercioExteriorModel } from '../model.ts';
import { at, checks } from './checks.ts';
import { exchangeRates, prepareHeader } from './header.ts';
import { prepareMercancias } from './mercancias.ts';
import { prepareParties } from './partes.ts';

/**
 * Complemento de Comercio Exterior 2.0: request → checked model (the node is in xml.ts). Pure. What SAT computes
 * (ValorDolares, TotalUSD, the Mercancias when only the conceptos are sent) is computed here, and checked when sent.
 *
 * Rule codes. SAT's Comercio Exterior 2.0 error matrix was not available: every code below is the one SAT's 1.1 matrix
 * gives the same rule, as a validator written against that matrix numbers it ("Códigos de error en base a matriz
 * oficial del SAT", ptorres/sat semantica_cce11.php, its CFDI 3.3 branch where 3.2 and 3.3 differ). None is verified
 * against 2.0. Where 2.0 changed the rule, the check follows 2.0's XSD and the 1.1 code is kept:
 *   CCE145  the complement on a tipo other than I or T (1.1 allowed E; the API issues it on I and T), and
 *           Exportacion other than 02 (1.1 had no Exportacion: no code is known, reported under CCE145)
 *   CCE113  MotivoTraslado on a tipo other than T (1.1's CFDI 3.2 code: its 3.3 branch had none)
 *   CCE146  MotivoTraslado missing on T · CCE147/CCE148 Propietario iff T with motivo 05
 *   CCE150  Receptor/@Rfc XEXX010101000 unless T with motivo 02 · CCE157 motivo 01 needs a TipoRelacion 05 relation
 *   CCE159  TipoCambioUSD missing (1.1: required with TipoOperacion 1 or 2; 2.0's XSD requires it always)
 *   CCE160  NumCertificadoOrigen with CertificadoOrigen 0 · CCE161 NumeroExportadorConfiable outside the EU
 *           (1.1 spelled it NumExportadorConfiable)
 *   CCE162  TotalUSD ≠ Σ ValorDolares · CCE163 TotalUSD not with two decimals
 *   CCE164/CCE165 Curp iff a 13-character RFC issuer · CCE167 Emisor/Domicilio required · CCE168 its Pais MEX
 *   CCE169–CCE173 the emisor's estado, municipio, localidad, colonia, código postal
 *   CCE174/CCE175 Propietario/@NumRegIdTrib against c_Pais' list / pattern
 *   CCE176  Receptor/@NumRegIdTrib (it is the comprobante's) · CCE181 Receptor/Domicilio required
 *   CCE182–CCE187 the receptor's colonia, localidad, municipio, estado, foreign and Mexican código postal
 *   CCE188  one Destinatario on a T · CCE189/CCE190 Destinatario/@NumRegIdTrib against c_Pais' list / pattern
 *   CCE191–CCE196 the destinatario's colonia, localidad, municipio, estado, foreign and Mexican código postal
 *   CCE197  a concepto without NoIdentificacion · CCE198 a mercancía without concepto · CCE199 a concepto without
 *           mercancía (the research notes give CCE199 to the former; the matrix validator numbers them so)
 *   CCE200  repeated NoIdentificacion + FraccionArancelaria
 *   CCE205  Σ ValorDolares of one NoIdentificacion outside the importe window (and missing where it cannot be computed)
 *   CCE206/CCE207 FraccionArancelaria iff UnidadAduana is not 99 · CCE208 fraction in force in c_FraccionArancelaria
 *   CCE209  UnidadAduana ≠ the fraction's UMT · CCE212 samples (9801000100, 1.1's 98010001) need a discount
 *   CCE213/CCE214 the aduana triplet all-or-none, on every mercancía · CCE215 ValorUnitarioAduana > 0 unless unit 99
 *   CCE216  ValorDolares outside CantidadAduana × ValorUnitarioAduana · CCE217 ValorDolares ≠ the concepto's value
 * 1.1 rules not carried: CCE201–CCE204 and CCE210 read the concepto's free-text Unidad as a customs unit (CFDI 4.0
 * keys it in c_ClaveUnidad); TipoOperacion and Subdivision (CCE158/CCE159's lists) left the schema.
 * Checks with no code are the XSD's (c_MotivoTraslado, c_ClavePedimento, c_INCOTERM, c_UnidadAduana, c_Pais keys).
 */
export function prepareComercioExterior(req: ComercioExteriorInput, ctx: ComercioExteriorContext, fail: Fail): ComercioExteriorModel {
  const c = checks(ctx.fecha.slice(0, 10), fail);
  const header = prepareHeader(req, ctx, c);
  const rates = exchangeRates(req, ctx, c);
  const parties = prepareParties(req, ctx, c);
  const mercancias = prepareMercancias(req, ctx, rates, c);

  // TotalUSD is the sum, written with exactly two decimals: a ValorDolares sent with cents' fractions cannot add up to it.
  const total = sum(mercancias.map((m) => m.valorDolares));
  if (total.trim().decimals > 2)
    fail(at('total_usd'), `the mercancías' valor_dolares add up to ${total.trim()}, which TotalUSD cannot carry with two decimals`, 'CCE163');
  const totalUSD = total.round(2);
  if (req.total_usd !== undefined) {
    const sent = Dec.parse(req.total_usd);
    if (sent.cmp(total) !== 0) fail(at('total_usd'), `must be ${totalUSD}, the sum of the mercancías' valor_dolares`, 'CCE162');
    else if (sent.decimals !== 2) fail(at('total_usd'), `must be written with two decimals: ${totalUSD}`, 'CCE163');
  }
  return { ...header, tipoCambioUSD: rates?.tipoCambioUSD ?? Dec.ZERO, totalUSD, ...parties, mercancias };
}
