import type { DecimalText } from '../../input.ts';

/** Nómina 1.2 Percepcion. */
interface PercepcionInput {
  tipo_percepcion: string;
  clave: string;
  concepto: string;
  importe_gravado: DecimalText;
  importe_exento: DecimalText;
  horas_extra?: { dias: number; tipo_horas: string; horas_extra: number; importe_pagado: DecimalText }[];
  acciones_o_titulos?: { valor_mercado: DecimalText; precio_al_otorgarse: DecimalText };
}

/** Complemento de Nómina 1.2: the payroll receipt; totals and Antigüedad are computed, never taken. */
export interface NominaInput {
  tipo_nomina: 'O' | 'E';
  fecha_pago: string;
  fecha_inicial_pago: string;
  fecha_final_pago: string;
  num_dias_pagados: DecimalText;
  emisor?: {
    registro_patronal?: string;
    curp?: string;
    rfc_patron_origen?: string;
    entidad_sncf?: { origen_recurso: string; monto_recurso_propio?: DecimalText };
  };
  receptor: {
    curp: string;
    nss?: string;
    fecha_inicio_rel_laboral?: string;
    tipo_contrato: string;
    sindicalizado?: boolean;
    tipo_jornada?: string;
    tipo_regimen: string;
    num_empleado: string;
    departamento?: string;
    puesto?: string;
    riesgo_puesto?: string;
    periodicidad_pago: string;
    banco?: string;
    cuenta_bancaria?: string;
    salario_base_cot_apor?: DecimalText;
    salario_diario_integrado?: DecimalText;
    clave_ent_fed: string;
    subcontratacion?: { rfc_labora: string; porcentaje_tiempo: DecimalText }[];
  };
  percepciones?: PercepcionInput[];
  jubilacion_pension_retiro?: {
    total_una_exhibicion?: DecimalText;
    total_parcialidad?: DecimalText;
    monto_diario?: DecimalText;
    ingreso_acumulable: DecimalText;
    ingreso_no_acumulable: DecimalText;
  };
  separacion_indemnizacion?: {
    total_pagado: DecimalText;
    num_anios_servicio: number;
    ultimo_sueldo_mens_ord: DecimalText;
    ingreso_acumulable: DecimalText;
    ingreso_no_acumulable: DecimalText;
  };
  deducciones?: { tipo_deduccion: string; clave: string; concepto: string; importe: DecimalText }[];
  otros_pagos?: {
    tipo_otro_pago: string;
    clave: string;
    concepto: string;
    importe: DecimalText;
    subsidio_causado?: DecimalText;
    compensacion_saldos_a_favor?: { saldo_a_favor: DecimalText; anio: number; remanente_sal_fav: DecimalText };
  }[];
  incapacidades?: { dias_incapacidad: number; tipo_incapacidad: string; importe_monetario?: DecimalText }[];
}
