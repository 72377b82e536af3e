/** The OpenAPI examples of POST /sat-lists/69b: SAT's file as a multipart field, or the CSV as the body. */
export const Lista69bUploadExamples = {
  upload: {
    summary: 'One multipart field: file',
    description: "SAT's Listado_Completo_69-B.csv as published (windows-1250 or UTF-8; three lines before the data; RFC in column 2, situación in column 4).",
    value: { file: '(the file Listado_Completo_69-B.csv)' },
  },
};

export const Lista69bCsvExamples = {
  csv: {
    summary: 'The CSV as the body (Content-Type: text/csv)',
    value:
      'Información actualizada al 30 de septiembre de 2025\r\n' +
      'Listado completo de contribuyentes (Artículo 69-B del Código Fiscal de la Federación)\r\n' +
      'No,RFC,Nombre del Contribuyente,Situación del contribuyente\r\n' +
      '1,EFO900101AB1,EMPRESA FACTURADORA DE OPERACIONES SIMULADAS SA DE CV,Definitivo\r\n',
  },
};
