import type { RetencionInput } from '../../../src/cfdi/retenciones/input.ts';
import type { RetencionContext } from '../../../src/cfdi/retenciones/prepare.ts';
import { createSigner, openPrivateKey, parseCertificate } from '../../../src/cfdi/csd.ts';
import type { Tfd } from '../../../src/cfdi/tfd.ts';
import { createSandboxPac, createSandboxSat } from '../../../src/pac/sandbox.ts';
import { csdFiles } from '../../helpers.ts';

/**
 * Four Retenciones 2.0 requests as a route will send them (plataformas, dividendos, pagos a extranjeros, arrendamiento),
 * the CSD that seals them and the sandbox PAC that stamps them: shared by the engine's tests and the PDF's.
 */
const eku = csdFiles('EKU9003173C9_CSD', 'EKU9003173C9');
const certificate = parseCertificate(eku.cer);
export const signer = createSigner(certificate, openPrivateKey(eku.key, eku.password, certificate));
export const sandboxSat = createSandboxSat();

export const context: RetencionContext = {
  emisor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimenFiscal: '601', codigoPostal: '42501' },
  now: new Date('2026-11-27T18:00:00Z'),
  folioInt: 'R100',
};
export const KARLA = {
  nacionalidad: 'Nacional',
  rfc: 'FUNK671228PH6',
  nombre: 'KARLA FUENTE NOLASCO',
  curp: 'FUNK671228MCLNLR05',
  domicilio_fiscal: '01000',
} as const;
export const FOREIGN = { nacionalidad: 'Extranjero', nombre: 'WORLD WIDE COMPANY INC', num_reg_id_trib: '998877665544332211' } as const;

export const plataformas: RetencionInput = {
  cve_retenc: '26',
  receptor: KARLA,
  periodo: { mes_ini: '10', mes_fin: '10', ejercicio: '2026' },
  totales: { monto_tot_operacion: '10000', monto_tot_grav: '10000' },
  impuestos_retenidos: [
    { impuesto_ret: '001', base_ret: '10000', tasa: '0.025', tipo_pago_ret: '04' },
    { impuesto_ret: '002', base_ret: '10000', tasa: '0.08', tipo_pago_ret: '01' },
  ],
  plataformas_tecnologicas: {
    periodicidad: '04',
    servicios: [
      {
        forma_pago_serv: '03',
        tipo_de_serv: '01',
        fecha_serv: '2026-10-05',
        precio_serv_sin_iva: '6000',
        impuestos_trasladados: { tasa_cuota: '0.16' },
        comision_del_servicio: { base: '6000', porcentaje: '0.1' },
      },
      {
        forma_pago_serv: '03',
        tipo_de_serv: '11',
        sub_tip_serv: '09',
        fecha_serv: '2026-10-20',
        precio_serv_sin_iva: '4000',
        impuestos_trasladados: { tasa_cuota: '0.160000' },
        comision_del_servicio: { importe: '400' },
      },
    ],
  },
};

export const dividendos: RetencionInput = {
  cve_retenc: '14',
  receptor: FOREIGN,
  periodo: { mes_ini: '01', mes_fin: '12', ejercicio: '2025' },
  totales: { monto_tot_operacion: '500000', monto_tot_grav: '500000' },
  impuestos_retenidos: [{ impuesto_ret: '001', base_ret: '500000', tasa: '0.10', tipo_pago_ret: '03' }],
  dividendos: {
    divid_o_util: {
      cve_tip_div_o_util: '01',
      mont_isr_acred_ret_mexico: '50000',
      mont_isr_acred_ret_extranjero: '0',
      tipo_soc_distr_div: 'Sociedad Nacional',
    },
  },
};

export const pagosAExtranjeros: RetencionInput = {
  cve_retenc: '18',
  receptor: FOREIGN,
  periodo: { mes_ini: '11', mes_fin: '11', ejercicio: '2026' },
  totales: { monto_tot_operacion: '100000', monto_tot_grav: '100000' },
  impuestos_retenidos: [{ impuesto_ret: '001', base_ret: '100000', tasa: '0.25', tipo_pago_ret: '03' }],
  pagos_a_extranjeros: {
    es_benef_efect_del_cobro: 'NO',
    no_beneficiario: { pais_de_resid_para_efec_fisc: 'US', concepto_pago: '2', descripcion_concepto: 'Regalías por el uso de software' },
  },
};

/** A company renting from an individual withholds ISR 10 % and two thirds of the 16 % IVA (10.6667 %). */
export const arrendamiento: RetencionInput = {
  cve_retenc: '05',
  receptor: KARLA,
  periodo: { mes_ini: '11', mes_fin: '11', ejercicio: '2026' },
  totales: { monto_tot_operacion: '20000', monto_tot_grav: '20000' },
  impuestos_retenidos: [
    { impuesto_ret: '001', base_ret: '20000', tasa: '0.10', tipo_pago_ret: '04' },
    { impuesto_ret: '002', base_ret: '20000', tasa: '0.106667', tipo_pago_ret: '01' },
  ],
};

/** The sandbox PAC, as test mode stamps a CFDI: a TFD 1.1 signed with the sandbox SAT's key, here on a Retenciones. */
const sandbox = createSandboxPac(sandboxSat, () => new Date('2026-11-27T18:00:05Z'));
export async function sandboxStamp(sealedXml: string): Promise<{ xml: string; tfd: Tfd }> {
  const result = await sandbox.stamp(sealedXml, { tenantId: 'tenant-ret' });
  if (!result.ok) throw new Error(result.message);
  return result;
}
