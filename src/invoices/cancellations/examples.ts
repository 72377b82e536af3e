/** Motivo 02 needs no replacement CFDI; 01 names one (folio_sustitucion). */
export const CancelExamples = {
  errores: { summary: 'Issued with errors, no replacement (motivo 02)', value: { motivo: '02' as const } },
};
