export const WebhookCreateExamples = {
  erp: {
    summary: 'Stamped and cancelled invoices to your ERP',
    value: { url: 'https://erp.example.com/hooks/cfdi', events: ['cfdi.timbrado' as const, 'cfdi.cancelado' as const] },
  },
};

export const WebhookPatchExamples = {
  pause: { summary: 'Pause deliveries (they wait until ACTIVO again)', value: { estado: 'PAUSADO' as const } },
};
