import type { ComercioExteriorInput } from '../input.ts';
import type { ComercioExteriorContext, ComercioExteriorModel } from '../model.ts';
import { at, type Checks } from './checks.ts';
import { domicilioModel } from '../../domicilio.ts';
import { checkTaxId, DESTINATARIO_DOMICILIO, EMISOR_DOMICILIO, prepareDomicilio, RECEPTOR_DOMICILIO } from './domicilios.ts';

type Partes = Pick<ComercioExteriorModel, 'emisor' | 'propietarios' | 'receptor' | 'destinatarios'>;

/** Emisor (CURP, the tenant's fiscal address), Propietario, Receptor and Destinatario. */
export function prepareParties(req: ComercioExteriorInput, ctx: ComercioExteriorContext, c: Checks): Partes {
  const curp = req.emisor?.curp;
  // A persona moral has no CURP; a persona física (13-character RFC) states it.
  if (ctx.emisor.rfc.length === 12 && curp !== undefined)
    c.fail(at('emisor.curp'), 'must not be sent: the emisor is a persona moral (12-character RFC)', 'CCE164');
  if (ctx.emisor.rfc.length === 13 && curp === undefined) c.fail(at('emisor.curp'), 'is required: the emisor is a persona física (13-character RFC)', 'CCE165');

  const fiscal = ctx.emisor.domicilio;
  if (!fiscal)
    c.fail(
      at('emisor.domicilio'),
      "is required: send it, or set the issuer's fiscal address once on its profile (PATCH /tenants/me with domicilio_fiscal: calle, estado, código postal, …)",
      'CCE167',
    );
  else if (fiscal.pais !== 'MEX') c.fail(at('emisor.domicilio.pais'), `must be MEX, not ${fiscal.pais}`, 'CCE168');
  // A domicilio abroad is not checked against Mexico's catalogs: CCE168 says what is wrong with it.
  const emisorDomicilio = !fiscal
    ? { calle: '', estado: '', pais: 'MEX', codigoPostal: '' }
    : fiscal.pais === 'MEX'
      ? prepareDomicilio(fiscal, 'emisor.domicilio', c, EMISOR_DOMICILIO, true)
      : domicilioModel(fiscal);

  const propietarios = (req.propietario ?? []).map((p, i) => {
    const path = `propietario[${i}]`;
    if (c.catalog(`${path}.residencia_fiscal`, 'c_Pais', p.residencia_fiscal))
      checkTaxId(c, `${path}.num_reg_id_trib`, p.num_reg_id_trib, p.residencia_fiscal, { list: 'CCE174', pattern: 'CCE175' });
    return { numRegIdTrib: p.num_reg_id_trib, residenciaFiscal: p.residencia_fiscal };
  });

  const r = req.receptor;
  // The foreign receptor's tax id is the comprobante's Receptor/@NumRegIdTrib in CFDI 4.0, as it was in 3.3.
  if (r?.num_reg_id_trib !== undefined)
    c.fail(at('receptor.num_reg_id_trib'), "must not be sent: the receptor's tax id is the comprobante's receptor.num_reg_id_trib", 'CCE176');
  if (!r?.domicilio) c.fail(at('receptor.domicilio'), "is required: the receptor's address (calle, estado, país, código postal)", 'CCE181');
  const receptor = r?.domicilio ? { domicilio: prepareDomicilio(r.domicilio, 'receptor.domicilio', c, RECEPTOR_DOMICILIO) } : undefined;

  const destinatario = req.destinatario ?? [];
  if (ctx.tipo === 'T' && destinatario.length > 1) c.fail(at('destinatario'), 'a Traslado has at most one destinatario', 'CCE188');
  const destinatarios = destinatario.map((d, i) => {
    const path = `destinatario[${i}]`;
    if (d.domicilio.length === 0) c.fail(at(`${path}.domicilio`), 'at least one domicilio is required');
    if (d.num_reg_id_trib !== undefined && d.domicilio[0])
      checkTaxId(c, `${path}.num_reg_id_trib`, d.num_reg_id_trib, d.domicilio[0].pais, { list: 'CCE189', pattern: 'CCE190' });
    return {
      numRegIdTrib: d.num_reg_id_trib,
      nombre: d.nombre,
      domicilios: d.domicilio.map((dom, j) => prepareDomicilio(dom, `${path}.domicilio[${j}]`, c, DESTINATARIO_DOMICILIO)),
    };
  });

  return { emisor: { curp, domicilio: emisorDomicilio }, propietarios, receptor, destinatarios };
}
