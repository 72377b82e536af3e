/** SAT's public test FIEL for EKU9003173C9 (the sandbox tenant) opens with this password. */
export const FielUploadExamples = {
  upload: {
    summary: 'Three multipart fields: cer and key (files), password (text)',
    description: "With SAT's test FIEL (e.firma) of EKU9003173C9 (EKU9003173C9.cer, EKU9003173C9.key), the password is 12345678a.",
    value: { cer: '(the file EKU9003173C9.cer of the e.firma)', key: '(the file EKU9003173C9.key of the e.firma)', password: '12345678a' },
  },
};
