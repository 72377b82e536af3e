import type { DecimalText, ImpuestosInput } from '../../input.ts';

/** Pagos 2.0 DoctoRelacionado: a document paid, issued here (found by the caller) or elsewhere (described here). */
export interface DoctoRelacionadoInput {
  num_parcialidad?: number;
  imp_pagado: DecimalText;
  equivalencia?: DecimalText;
  serie?: string;
  folio?: string;
  moneda?: string;
  imp_saldo_ant?: DecimalText;
  objeto_imp?: string;
  impuestos?: ImpuestosInput;
}

/** Pagos 2.0 Pago: one payment received. */
export interface PagoInput {
  fecha_pago: string;
  forma_pago: string;
  moneda: string;
  tipo_cambio?: DecimalText;
  monto: DecimalText;
  num_operacion?: string;
  rfc_emisor_cta_ord?: string;
  nom_banco_ord_ext?: string;
  cta_ordenante?: string;
  rfc_emisor_cta_ben?: string;
  cta_beneficiario?: string;
  documentos: DoctoRelacionadoInput[];
}
