/**
 * The keys of catRetenciones.xsd (SAT's catalog schema of Retenciones 2.0, in ./xsd) the engine checks: values the
 * schema would refuse are refused with the field and SAT's rule code before any XML is written.
 */
const keys = (text: string): ReadonlySet<string> => new Set(text.split(' ').filter(Boolean));
const range = (from: number, to: number, width = 2): ReadonlySet<string> =>
  new Set(Array.from({ length: to - from + 1 }, (_, i) => String(from + i).padStart(width, '0')));

export const C_CVE_RETENC = range(1, 28);
export const C_TIPO_PAGO_RET = range(1, 4);
export const C_PERIODO = range(1, 12);
export const C_EJERCICIO = range(2019, 2027, 4);

/** c_Pais of catRetenciones.xsd: two-letter codes (the CFDI's c_Pais has three). */
export const C_PAIS_RETENCIONES = keys(
  'AF AL DE AD AO AI AQ AG AN SA DZ AR AM AW AU AT AZ BS BH BD BB BE BZ BJ BM BY BO BA BW BR BN BG BF BI BT CV TD KY KH CM CA CL CN CY VA CC ' +
    'CO KM CG CK KP KR CI CR HR CU DK DJ DM EC EG SV AE ER SI ES FM US EE ET FJ PH FI FR GA GM GE GH GI GD GR GL GP GU GT GG GW GQ GN GF GY HT ' +
    'HN HK HU IN ID IQ IR IE IS BV IM AX FO GS HM FK MP MH UM SB SJ TK WF IL IT JM JP JE JO KZ KE KI KW KG LS LV LB LR LY LI LT LU MO MK MG MY ' +
    'MW MV ML MT MA MQ MU MR YT MX MD MC MN MS ME MZ MM NA NR CX NP NI NE NG NU NF NO NC NZ OM PIK NL PK PW PS PA PG PY PE PN PF PL PT PR QA GB ' +
    'CZ CF LA RS DO SK CD RW RE RO RU EH WS AS BL KN SM MF PM VC SH LC ST SN SC SL SG SY SO LK ZA SD SE CH SR SZ TJ TH TW TZ IO TF TL TG TO TT ' +
    'TN TC TM TR TV UA UG UY UZ VU VE VN VG VI YE ZM ZW ',
);

/** c_CveRetenc's descriptions (SAT's catalog of Retenciones 2.0), printed beside the key. */
export const CVE_RETENC_DESCRIPCION: Readonly<Record<string, string>> = {
  '01': 'Servicios profesionales',
  '02': 'Regalías por derechos de autor',
  '03': 'Autotransporte terrestre de carga',
  '04': 'Servicios prestados por comisionistas',
  '05': 'Arrendamiento',
  '06': 'Enajenación de acciones',
  '07': 'Enajenación de bienes objeto de la LIEPS, a través de mediadores, agentes, representantes, corredores, consignatarios o distribuidores',
  '08': 'Enajenación de bienes inmuebles consignada en escritura pública',
  '09': 'Enajenación de otros bienes, no consignada en escritura pública',
  '10': 'Adquisición de desperdicios industriales',
  '11': 'Adquisición de bienes consignada en escritura pública',
  '12': 'Adquisición de otros bienes, no consignada en escritura pública',
  '13': 'Otros retiros de AFORE',
  '14': 'Dividendos o utilidades distribuidas',
  '15': 'Remanente distribuible',
  '16': 'Intereses',
  '17': 'Arrendamiento en fideicomiso',
  '18': 'Pagos realizados a favor de residentes en el extranjero',
  '19': 'Enajenación de acciones u operaciones en bolsa de valores',
  '20': 'Obtención de premios',
  '21': 'Fideicomisos que no realizan actividades empresariales',
  '22': 'Planes personales de retiro',
  '23': 'Intereses reales deducibles por créditos hipotecarios',
  '24': 'Operaciones Financieras Derivadas de Capital',
  '25': 'Otro tipo de retenciones',
  '26': 'Servicios mediante Plataformas Tecnológicas',
  '27': 'Sector Financiero',
  '28': 'Pagos y retenciones a Contribuyentes del RIF',
};

/** c_TipoPagoRet's descriptions (Retenciones 2.0). */
export const TIPO_PAGO_RET_DESCRIPCION: Readonly<Record<string, string>> = {
  '01': 'Pago definitivo IVA',
  '02': 'Pago definitivo IEPS',
  '03': 'Pago definitivo ISR',
  '04': 'Pago provisional ISR',
};

/** c_Periodicidad of catRetenciones.xsd (Servicios de Plataformas Tecnológicas). */
export const PERIODICIDAD_DESCRIPCION: Readonly<Record<string, string>> = {
  '01': 'Diario',
  '02': 'Semanal',
  '03': 'Quincenal',
  '04': 'Mensual',
  '05': 'Bimestral',
};
