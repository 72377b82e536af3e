/** SAT's public test CSD for EKU9003173C9 (the sandbox tenant) opens with this password. */
export const CsdUploadExamples = {
  upload: {
    summary: 'Three multipart fields: cer and key (files), password (text)',
    description: "With SAT's test CSD of EKU9003173C9 (EKU9003173C9.cer, EKU9003173C9.key), the password is 12345678a.",
    value: { cer: '(the file EKU9003173C9.cer)', key: '(the file EKU9003173C9.key)', password: '12345678a' },
  },
};
