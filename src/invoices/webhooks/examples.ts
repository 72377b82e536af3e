export const WebhookCreateExamples = {
  erp: {
    summary: 'Stamped and cancelled invoices to your ERP',
    value: { url: 'https://erp.example.com/hooks/cfdi', events: ['cfdi.timbrado' as const, 'cfdi.cancelado' as const] },
  },
};

export const WebhookPatchExamples = {
  pause: { summary: 'Pause deliveries (they wait until ACTIVO again)', value: { estado: 'PAUSADO' as const } },
};

export const WebhookRotateExamples = {
  overlap: { summary: 'A new secret; the old one keeps signing beside it for 24 hours', value: { expire_previous_in_hours: 24 } },
  now: { summary: 'A new secret; the old one stops at once (a leaked secret)', value: { expire_previous_in_hours: 0 } },
};
