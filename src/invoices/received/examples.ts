/**
 * The bodies of POST /received-cfdis. An example cannot carry a real CFDI's bytes: each names what to send, as the
 * CSD upload's does (tests/gateway/openapi-examples.test.ts sends SAT's stamped sample in its place).
 */
export const ReceivedXmlExamples = {
  xml: {
    summary: 'One CFDI, the XML as the supplier sent it (Content-Type: application/xml)',
    description: "The body is the XML file's bytes, unchanged: e.g. `curl --data-binary @factura.xml -H 'Content-Type: application/xml'`.",
    value: '(the bytes of a stamped CFDI 4.0 XML)',
  },
};

export const ReceivedZipExamples = {
  zip: {
    summary: 'A ZIP of CFDI XML files (Content-Type: application/zip)',
    description: 'Each entry is one document (directories are skipped); entries count towards the per-request limit.',
    value: '(the bytes of a ZIP of stamped CFDI XML files)',
  },
};

export const ReceivedFormExamples = {
  files: {
    summary: 'Several files, any field names, each a CFDI XML or a ZIP of them',
    description: 'E.g. `curl -F file=@a.xml -F file=@b.xml -F paquete=@enero.zip`.',
    value: { file: '(a stamped CFDI 4.0 XML file)' },
  },
};
