import type { CartaPorteInput, TipoFiguraInput } from '../input.ts';
import type { TipoFiguraModel } from '../model.ts';
import { at, checkResidencia, type Checks, type Modes, prepareDomicilio } from './common.ts';

/** Carta Porte 3.1, FiguraTransporte: operators, owners, lessees and notified parties. */

const FIGURA_DOMICILIO = { localidad: 'CP201', municipio: 'CP202', estado: 'CP203', codigoPostal: 'CP204' };

function prepareFigura(f: TipoFiguraInput, i: number, emisorRfc: string, c: Checks): TipoFiguraModel {
  const path = `figura_transporte[${i}]`;
  c.catalog(`${path}.tipo_figura`, 'c_FiguraTransporte', f.tipo_figura);
  // A figura with an RFC, or a foreign one with its tax id and country (CP195, CP197, CP198).
  if (f.rfc_figura === undefined)
    c.need(`${path}.num_reg_id_trib_figura`, f.num_reg_id_trib_figura, 'a figura without rfc_figura is foreign and gives its tax id', 'CP197');
  else c.forbid(`${path}.num_reg_id_trib_figura`, f.num_reg_id_trib_figura, 'the figura has an RFC (rfc_figura)', 'CP197');
  if (f.num_reg_id_trib_figura !== undefined)
    c.need(`${path}.residencia_fiscal_figura`, f.residencia_fiscal_figura, 'a foreign tax id goes with its country', 'CP198');
  else c.forbid(`${path}.residencia_fiscal_figura`, f.residencia_fiscal_figura, 'it is the country of num_reg_id_trib_figura, which is not sent', 'CP198');
  if (f.residencia_fiscal_figura !== undefined) checkResidencia(c, `${path}.residencia_fiscal_figura`, f.residencia_fiscal_figura, 'CP198');
  // The operator drives with a licence (CP196); an owner or lessor names the parts that are theirs (CP199).
  if (f.tipo_figura === '01') c.need(`${path}.num_licencia`, f.num_licencia, "an operator (tipo_figura 01) gives the licence's number", 'CP196');
  else c.forbid(`${path}.num_licencia`, f.num_licencia, 'only an operator (tipo_figura 01) has a licence', 'CP196');
  const owner = f.tipo_figura === '02' || f.tipo_figura === '03';
  if (owner)
    c.need(`${path}.partes_transporte`, f.partes_transporte, 'an owner (02) or a lessor (03) names the parts of the transport that are theirs', 'CP199');
  else c.forbid(`${path}.partes_transporte`, f.partes_transporte, 'only an owner (02) or a lessor (03) names parts of the transport', 'CP199');
  (f.partes_transporte ?? []).forEach((p, j) => c.catalog(`${path}.partes_transporte[${j}]`, 'c_ParteTransporte', p, 'CP199'));
  // Owners and lessors are listed because the transport is not the issuer's own (CartaPorte31.xsd, FiguraTransporte).
  if (owner && f.rfc_figura === emisorRfc)
    c.fail(at(`${path}.rfc_figura`), "is the issuer's RFC: an owner (02) or a lessor (03) is listed when the transport belongs to someone else");
  return {
    tipoFigura: f.tipo_figura,
    rfcFigura: f.rfc_figura,
    numLicencia: f.num_licencia,
    nombreFigura: f.nombre_figura,
    numRegIdTribFigura: f.num_reg_id_trib_figura,
    residenciaFiscalFigura: f.residencia_fiscal_figura,
    partesTransporte: f.partes_transporte ?? [],
    domicilio: f.domicilio && prepareDomicilio(f.domicilio, `${path}.domicilio`, c, FIGURA_DOMICILIO),
  };
}

/** Figuras: a truck is driven by an operator (CP193, CP194). */
export function prepareFiguras(req: CartaPorteInput, modes: Modes, emisorRfc: string, c: Checks): TipoFiguraModel[] {
  const fail = c.fail;
  const figuras = req.figura_transporte ?? [];
  if (modes.auto && !figuras.some((f) => f.tipo_figura === '01'))
    fail(
      at('figura_transporte'),
      'road transport (autotransporte) names its operator: a figura with tipo_figura 01 and num_licencia',
      figuras.length ? 'CP194' : 'CP193',
    );
  return figuras.map((f, i) => prepareFigura(f, i, emisorRfc, c));
}
