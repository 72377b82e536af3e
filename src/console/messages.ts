/** The console's two languages: Spanish (the default) and English, from Accept-Language or the chosen cookie. */
export type Lang = 'es' | 'en';

const ES = {
  title: 'Consola',
  signIn: 'Iniciar sesión',
  signInTitle: 'Inicia sesión en la consola',
  email: 'Correo electrónico',
  password: 'Contraseña',
  tenantId: 'ID del emisor (solo si tu correo está en varios)',
  wrongLogin: 'Correo o contraseña incorrectos.',
  lockedOut: (seconds: string) => `Demasiados intentos fallidos: espera ${seconds} segundos antes de volver a intentar.`,
  signOut: 'Cerrar sesión',
  signedOut: 'Cerraste la sesión.',
  sessionEnded: 'Tu sesión terminó: vuelve a iniciar sesión.',
  environment: 'Ambiente',
  test: 'Pruebas',
  live: 'PRODUCCIÓN',
  liveBanner: 'PRODUCCIÓN: lo que hagas aquí es real ante el SAT',
  switchTo: (env: string) => `Cambiar a ${env}`,
  invoices: 'Facturas',
  language: 'English',
  languageCode: 'en',
  filters: 'Filtros',
  receptorRfc: 'RFC del receptor',
  serie: 'Serie',
  status: 'Estado',
  tipo: 'Tipo',
  from: 'Desde',
  to: 'Hasta',
  any: 'Cualquiera',
  search: 'Buscar',
  clear: 'Limpiar',
  noInvoices: 'No hay facturas con estos filtros.',
  next: 'Siguiente página',
  first: 'Primera página',
  uuid: 'UUID',
  folio: 'Serie y folio',
  date: 'Fecha',
  receptor: 'Receptor',
  emisor: 'Emisor',
  total: 'Total',
  subtotal: 'Subtotal',
  discount: 'Descuento',
  transferred: 'Impuestos trasladados',
  withheld: 'Impuestos retenidos',
  open: 'Ver',
  conceptos: 'Conceptos',
  descripcion: 'Descripción',
  cantidad: 'Cantidad',
  valorUnitario: 'Valor unitario',
  importe: 'Importe',
  stamped: 'Timbrado',
  formaPago: 'Forma de pago',
  metodoPago: 'Método de pago',
  moneda: 'Moneda',
  downloadXml: 'Descargar XML',
  downloadPdf: 'Descargar PDF',
  notStamped: 'Aún no está timbrada: no hay XML ni PDF.',
  withdraw: 'Retirar de la cola',
  withdrawConfirm: 'La factura no se timbrará y su folio queda usado. ¿Retirarla?',
  back: 'Volver a la lista',
  notFound: 'No encontrado',
  notFoundText: 'No existe esta factura en tu cuenta.',
  forbidden: 'No permitido',
  forbiddenText: 'Tu rol no permite este cambio.',
  badForm: 'El formulario caducó o no vino de esta consola: vuelve a cargar la página e inténtalo otra vez.',
  failed: 'No se pudo completar',
  role: 'Rol',
  statuses: { en_cola: 'En cola', vigente: 'Vigente', cancelacion_pendiente: 'Cancelación pendiente', cancelado: 'Cancelado', fallido: 'Fallido' } as Record<
    string,
    string
  >,
  tipos: { I: 'Ingreso', E: 'Egreso', P: 'Pago', N: 'Nómina', T: 'Traslado' } as Record<string, string>,
  skip: 'Saltar al contenido',
};

const EN: typeof ES = {
  title: 'Console',
  signIn: 'Sign in',
  signInTitle: 'Sign in to the console',
  email: 'Email',
  password: 'Password',
  tenantId: 'Issuer ID (only when your email is in several)',
  wrongLogin: 'Wrong email or password.',
  lockedOut: (seconds: string) => `Too many failed attempts: wait ${seconds} seconds before trying again.`,
  signOut: 'Sign out',
  signedOut: 'You signed out.',
  sessionEnded: 'Your session ended: sign in again.',
  environment: 'Environment',
  test: 'Test',
  live: 'LIVE',
  liveBanner: 'LIVE: what you do here is real for SAT',
  switchTo: (env: string) => `Switch to ${env}`,
  invoices: 'Invoices',
  language: 'Español',
  languageCode: 'es',
  filters: 'Filters',
  receptorRfc: "Receptor's RFC",
  serie: 'Serie',
  status: 'Status',
  tipo: 'Type',
  from: 'From',
  to: 'To',
  any: 'Any',
  search: 'Search',
  clear: 'Clear',
  noInvoices: 'No invoices match these filters.',
  next: 'Next page',
  first: 'First page',
  uuid: 'UUID',
  folio: 'Serie and folio',
  date: 'Date',
  receptor: 'Receptor',
  emisor: 'Emisor',
  total: 'Total',
  subtotal: 'Subtotal',
  discount: 'Discount',
  transferred: 'Taxes transferred',
  withheld: 'Taxes withheld',
  open: 'Open',
  conceptos: 'Conceptos',
  descripcion: 'Description',
  cantidad: 'Quantity',
  valorUnitario: 'Unit value',
  importe: 'Amount',
  stamped: 'Stamped',
  formaPago: 'Forma de pago',
  metodoPago: 'Método de pago',
  moneda: 'Currency',
  downloadXml: 'Download XML',
  downloadPdf: 'Download PDF',
  notStamped: 'Not stamped yet: no XML or PDF.',
  withdraw: 'Withdraw from the queue',
  withdrawConfirm: 'The invoice will not be stamped and its folio stays used. Withdraw it?',
  back: 'Back to the list',
  notFound: 'Not found',
  notFoundText: 'There is no such invoice in your account.',
  forbidden: 'Not allowed',
  forbiddenText: 'Your role does not allow this change.',
  badForm: 'The form expired or did not come from this console: reload the page and try again.',
  failed: 'Could not complete',
  role: 'Role',
  statuses: { en_cola: 'Queued', vigente: 'Valid', cancelacion_pendiente: 'Cancellation pending', cancelado: 'Cancelled', fallido: 'Failed' },
  tipos: { I: 'Ingreso', E: 'Egreso', P: 'Pago', N: 'Nómina', T: 'Traslado' },
  skip: 'Skip to content',
};

export type Messages = typeof ES;
export const MESSAGES: Record<Lang, Messages> = { es: ES, en: EN };

/** The chosen language (cookie), else the first of Accept-Language the console speaks, else Spanish. */
export function languageOf(cookie: string | undefined, acceptLanguage: string | undefined): Lang {
  if (cookie === 'es' || cookie === 'en') return cookie;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = Number(
        params
          .find((p) => p.trim().startsWith('q='))
          ?.trim()
          .slice(2) ?? '1',
      );
      return { tag: tag.toLowerCase(), q: Number.isFinite(q) ? q : 0 };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of ranked) {
    if (tag.startsWith('es')) return 'es';
    if (tag.startsWith('en')) return 'en';
  }
  return 'es';
}
