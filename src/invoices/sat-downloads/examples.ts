/** OpenAPI examples of POST /sat-downloads, shared by the schema and the test that checks them. */
export const SatDownloadCreateExamples = {
  receivedXml: {
    summary: 'The XML of the CFDI received in a month (SAT sends only the vigentes)',
    value: { direction: 'received', kind: 'xml', desde: '2026-10-01', hasta: '2026-10-31' },
  },
  issuedMetadata: {
    summary: 'The metadata of the ingresos issued to one client in a day, by the hour',
    value: { direction: 'issued', kind: 'metadata', desde: '2026-10-01T00:00:00', hasta: '2026-10-01T23:59:59', tipo: 'I', rfc: 'XAXX010101000' },
  },
} as const;

/** OpenAPI examples of PUT /sat-downloads/sync. */
export const SatDownloadSyncExamples = {
  enable: { summary: 'Sync every day: metadata both ways, then the XML of received vigentes not stored yet', value: { enabled: true } },
  disable: { summary: 'Stop the daily sync', value: { enabled: false } },
} as const;
