/** A ticket's self-invoice key as printed on it (26 characters, Crockford base32). */
export const EXAMPLE_KEY = '7M2K9QX4TB8R1C5V3N6P0W8Y2H';

/** The portal's invoicing request: a key printed on a ticket and the customer's receptor data (SAT's test RFC ICV060329BY0). */
export const PORTAL_INVOICE_EXAMPLES = {
  con_correo: {
    summary: 'Invoice a ticket to a persona moral, with email',
    description: '`clave` is the key printed on the ticket (its self_invoice_url ends in ?clave=…): put one of yours.',
    value: {
      clave: EXAMPLE_KEY,
      receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', domicilio_fiscal: '33826', regimen_fiscal: '601', uso_cfdi: 'G03' },
      email: 'cuentas@example.com',
    },
  },
};
