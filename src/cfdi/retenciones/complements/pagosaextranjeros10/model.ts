export interface PagosAExtranjerosModel {
  esBenefEfectDelCobro: 'SI' | 'NO';
  noBeneficiario?: { paisDeResidParaEfecFisc: string; conceptoPago: string; descripcionConcepto: string };
  beneficiario?: { rfc: string; curp: string; nomDenRazSocB: string; conceptoPago: string; descripcionConcepto: string };
}
