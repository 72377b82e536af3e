import { randomToken } from '../lib/crypto.ts';
import type { ConsoleContext, ConsoleKit, ConsoleRouter, Session } from './kit.ts';
import type { Messages } from './messages.ts';
import { h, ISSUE_SCRIPT_PATH, type Markup, page, type Viewer } from './page.ts';

/**
 * Issue a CFDI from a form (issue 40, build item 3): Ingreso, Egreso and Pago. The form's inputs are named by the
 * API's own paths (`receptor.rfc`, `conceptos[0].clave_prod_serv`, `pagos[0].documentos[0].imp_pagado`), so an error
 * the API names lands beside its input. Without script it posts and is re-rendered with the errors; the script
 * (issue-script.ts) adds catalog search, live totals, validation as one goes and a draft kept across reloads.
 */

/** One concepto as the form holds it: the taxes as choices (IVA rate or exento, ISR and IVA withheld rates). */
interface ConceptoForm {
  clave_prod_serv: string;
  clave_unidad: string;
  descripcion: string;
  cantidad: string;
  valor_unitario: string;
  descuento: string;
  objeto_imp: string;
  iva: string;
  ret_isr: string;
  ret_iva: string;
}
interface DocumentoForm {
  documento: string;
  imp_pagado: string;
  num_parcialidad: string;
}
interface IssueForm {
  tipo: 'I' | 'E' | 'P';
  serie: string;
  forma_pago: string;
  metodo_pago: string;
  moneda: string;
  receptor_id: string;
  receptor: { rfc: string; nombre: string; regimen_fiscal: string; domicilio_fiscal: string; uso_cfdi: string };
  relacion: { tipo_relacion: string; uuids: string };
  conceptos: ConceptoForm[];
  pago: { fecha_pago: string; forma_pago: string; monto: string };
  documentos: DocumentoForm[];
}

const CONCEPTO_KEYS = [
  'clave_prod_serv',
  'clave_unidad',
  'descripcion',
  'cantidad',
  'valor_unitario',
  'descuento',
  'objeto_imp',
  'iva',
  'ret_isr',
  'ret_iva',
] as const;
const DOCUMENTO_KEYS = ['documento', 'imp_pagado', 'num_parcialidad'] as const;
const MAX_ROWS = 50;

const emptyConcepto = (): ConceptoForm => ({
  clave_prod_serv: '',
  clave_unidad: '',
  descripcion: '',
  cantidad: '1',
  valor_unitario: '',
  descuento: '',
  objeto_imp: '02',
  iva: '16',
  ret_isr: '',
  ret_iva: '',
});
const emptyDocumento = (): DocumentoForm => ({ documento: '', imp_pagado: '', num_parcialidad: '' });

function emptyForm(tipo: string | undefined): IssueForm {
  return {
    tipo: tipo === 'E' || tipo === 'P' ? tipo : 'I',
    serie: '',
    forma_pago: '03',
    metodo_pago: 'PUE',
    moneda: 'MXN',
    receptor_id: '',
    receptor: { rfc: '', nombre: '', regimen_fiscal: '', domicilio_fiscal: '', uso_cfdi: tipo === 'P' ? 'CP01' : 'G03' },
    relacion: { tipo_relacion: '01', uuids: '' },
    conceptos: [emptyConcepto()],
    pago: { fecha_pago: '', forma_pago: '03', monto: '' },
    documentos: [emptyDocumento()],
  };
}

/** Rows `prefix[i].key` of a posted form, in index order, gaps closed; at most MAX_ROWS. */
function rows<K extends string>(fields: Record<string, string>, prefix: string, keys: readonly K[]): Record<K, string>[] {
  const found = new Map<number, Record<K, string>>();
  const pattern = new RegExp(`^${prefix.replace(/[[\].]/g, '\\$&')}\\[(\\d{1,3})\\]\\.(\\w+)$`);
  for (const [name, value] of Object.entries(fields)) {
    const m = pattern.exec(name);
    if (!m || !(keys as readonly string[]).includes(m[2]!)) continue;
    const i = Number(m[1]);
    if (!found.has(i)) found.set(i, Object.fromEntries(keys.map((k) => [k, ''])) as Record<K, string>);
    found.get(i)![m[2] as K] = value.slice(0, 1000);
  }
  return [...found.entries()]
    .sort((a, b) => a[0] - b[0])
    .slice(0, MAX_ROWS)
    .map((e) => e[1]);
}

/** The form as posted (every field a string, trimmed but descripcion's). */
function formFromFields(fields: Record<string, string>): IssueForm {
  const f = (name: string) => (fields[name] ?? '').trim().slice(0, 1000);
  const base = emptyForm(f('tipo'));
  const conceptos = rows(fields, 'conceptos', CONCEPTO_KEYS).map((c) => ({
    ...c,
    ...Object.fromEntries(CONCEPTO_KEYS.filter((k) => k !== 'descripcion').map((k) => [k, c[k].trim()])),
  })) as ConceptoForm[];
  const documentos = rows(fields, 'pagos[0].documentos', DOCUMENTO_KEYS).map((d) => ({
    documento: d.documento.trim(),
    imp_pagado: d.imp_pagado.trim(),
    num_parcialidad: d.num_parcialidad.trim(),
  }));
  return {
    tipo: base.tipo,
    serie: f('serie'),
    forma_pago: f('forma_pago'),
    metodo_pago: f('metodo_pago'),
    moneda: f('moneda'),
    receptor_id: f('receptor_id'),
    receptor: {
      rfc: f('receptor.rfc'),
      nombre: f('receptor.nombre'),
      regimen_fiscal: f('receptor.regimen_fiscal'),
      domicilio_fiscal: f('receptor.domicilio_fiscal'),
      uso_cfdi: f('receptor.uso_cfdi'),
    },
    relacion: { tipo_relacion: f('cfdi_relacionados[0].tipo_relacion'), uuids: f('cfdi_relacionados[0].uuids') },
    conceptos: conceptos.length ? conceptos : [emptyConcepto()],
    pago: { fecha_pago: f('pagos[0].fecha_pago'), forma_pago: f('pagos[0].forma_pago'), monto: f('pagos[0].monto') },
    documentos: documentos.length ? documentos : [emptyDocumento()],
  };
}

const IVA: Record<string, { tipo_factor: string; tasa_o_cuota?: string }> = {
  '16': { tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' },
  '8': { tipo_factor: 'Tasa', tasa_o_cuota: '0.080000' },
  '0': { tipo_factor: 'Tasa', tasa_o_cuota: '0.000000' },
  exento: { tipo_factor: 'Exento' },
};
/** The withholding rates offered: ISR 10 % and 1.25 % (RESICO), IVA two thirds of 16 %, 4 % (freight) and 10.6667 %. */
const RET_ISR = ['0.100000', '0.012500'];
const RET_IVA = ['0.106667', '0.040000', '0.160000'];

/** Sum of decimal strings as exact text (display only; the API computes the real totals). */
function sumText(values: string[]): string {
  let micros = 0n;
  for (const v of values) {
    const m = /^(\d{1,18})(?:\.(\d{1,6}))?$/.exec(v);
    if (!m) return '';
    micros += BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0'));
  }
  const s = micros.toString().padStart(7, '0');
  return `${s.slice(0, -6)}.${s.slice(-6)}`.replace(/\.?0+$/, '').replace(/^$/, '0');
}

/** The CfdiRequest the form stands for: what the API validates and issues (strings as typed: the API names bad ones). */
function requestOf(form: IssueForm): Record<string, unknown> {
  const req: Record<string, unknown> = { tipo: form.tipo };
  if (form.serie) req.serie = form.serie;
  if (form.tipo !== 'P') {
    if (form.forma_pago) req.forma_pago = form.forma_pago;
    if (form.metodo_pago) req.metodo_pago = form.metodo_pago;
    if (form.moneda) req.moneda = form.moneda;
  }
  if (form.receptor_id) req.receptor_id = form.receptor_id;
  else req.receptor = { ...form.receptor };
  const uuids = form.relacion.uuids.split(/[\s,]+/).filter(Boolean);
  if (uuids.length) req.cfdi_relacionados = [{ tipo_relacion: form.relacion.tipo_relacion, uuids }];
  if (form.tipo === 'P') {
    const documentos = form.documentos
      .filter((d) => d.documento || d.imp_pagado)
      .map((d) => ({
        ...(d.documento.startsWith('cfdi_') ? { cfdi_id: d.documento } : { uuid: d.documento }),
        imp_pagado: d.imp_pagado,
        ...(d.num_parcialidad ? { num_parcialidad: /^\d{1,3}$/.test(d.num_parcialidad) ? Number(d.num_parcialidad) : d.num_parcialidad } : {}),
      }));
    const monto = form.pago.monto || sumText(documentos.map((d) => d.imp_pagado));
    req.pagos = [{ fecha_pago: form.pago.fecha_pago, forma_pago: form.pago.forma_pago, moneda: 'MXN', monto, documentos }];
    return req;
  }
  req.conceptos = form.conceptos.map((c) => {
    const concepto: Record<string, unknown> = {
      clave_prod_serv: c.clave_prod_serv,
      clave_unidad: c.clave_unidad,
      descripcion: c.descripcion,
      cantidad: c.cantidad,
      valor_unitario: c.valor_unitario,
      objeto_imp: c.objeto_imp || '02',
    };
    if (c.descuento) concepto.descuento = c.descuento;
    if (concepto.objeto_imp === '02') {
      const iva = IVA[c.iva];
      const traslados = iva ? [{ impuesto: '002', ...iva }] : [];
      const retenciones = [
        ...(c.ret_isr ? [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: c.ret_isr }] : []),
        ...(c.ret_iva ? [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: c.ret_iva }] : []),
      ];
      if (traslados.length || retenciones.length)
        concepto.impuestos = { ...(traslados.length ? { traslados } : {}), ...(retenciones.length ? { retenciones } : {}) };
    }
    return concepto;
  });
  return req;
}

/** An error of the API (its field and issue), with the form input it belongs beside (undefined: shown at the top). */
interface FieldError {
  field: string;
  issue: string;
  rule?: string;
  input?: string;
}

/** The input of the form an API field names: the field itself, else the nearest enclosing one the form has. */
function inputOf(field: string, form: IssueForm, request: Record<string, unknown>): string | undefined {
  const names = new Set(inputNames(form));
  let name = field
    .replace(/^(pagos\[0\]\.documentos\[\d+\])\.(uuid|cfdi_id)$/, '$1.documento')
    .replace(/^(cfdi_relacionados\[0\]\.uuids)\[\d+\]$/, '$1')
    .replace(/^(conceptos\[\d+\])\.impuestos\.traslados\b.*$/, '$1.iva');
  const retention = /^conceptos\[(\d+)\]\.impuestos\.retenciones\[(\d+)\]/.exec(name);
  if (retention) {
    const conceptos = request.conceptos as { impuestos?: { retenciones?: { impuesto: string }[] } }[] | undefined;
    const tax = conceptos?.[Number(retention[1])]?.impuestos?.retenciones?.[Number(retention[2])];
    name = `conceptos[${retention[1]}].${tax?.impuesto === '001' ? 'ret_isr' : 'ret_iva'}`;
  }
  if (name === 'receptor' && form.receptor_id) name = 'receptor_id';
  if (name.startsWith('receptor.') && form.receptor_id) return names.has(name) ? name : 'receptor_id';
  for (;;) {
    if (names.has(name)) return name;
    const shorter = name.replace(/(\.\w+|\[\d+\])$/, '');
    if (shorter === name || !shorter) return undefined;
    name = shorter;
  }
}

/** Every input name of the form as it is rendered. */
function inputNames(form: IssueForm): string[] {
  const names = [
    'tipo',
    'serie',
    'forma_pago',
    'metodo_pago',
    'moneda',
    'receptor_id',
    'receptor.rfc',
    'receptor.nombre',
    'receptor.regimen_fiscal',
    'receptor.domicilio_fiscal',
    'receptor.uso_cfdi',
    'cfdi_relacionados[0].tipo_relacion',
    'cfdi_relacionados[0].uuids',
    'pagos[0].fecha_pago',
    'pagos[0].forma_pago',
    'pagos[0].monto',
  ];
  form.conceptos.forEach((_, i) => {
    for (const k of CONCEPTO_KEYS) names.push(`conceptos[${i}].${k}`);
  });
  form.documentos.forEach((_, i) => {
    for (const k of DOCUMENTO_KEYS) names.push(`pagos[0].documentos[${i}].${k}`);
  });
  return names;
}

/** The API's verdict on a request (POST /cfdis/validate's 200, or any 400's details) as field errors; undefined when valid. */
async function errorsOf(res: Response, form: IssueForm, request: Record<string, unknown>): Promise<FieldError[]> {
  const body = (await res.json().catch(() => ({}))) as {
    valid?: boolean;
    errors?: { field: string; issue: string; rule?: string }[];
    error?: { message?: string; details?: { field: string; issue: string; rule?: string }[] };
  };
  const list = body.errors ?? body.error?.details ?? [{ field: '', issue: body.error?.message ?? `HTTP ${res.status}` }];
  return list.map((e) => ({ ...e, input: inputOf(e.field, form, request) }));
}

const idOf = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

interface Client {
  id: string;
  rfc: string;
  nombre: string;
}

/** The form; `errors` beside their inputs (the rest at the top); `fresh` when nothing was posted (a draft may fill it). */
function formContent(v: Viewer, o: { form: IssueForm; errors: FieldError[]; clients: Client[]; draftKey: string; fresh: boolean; notice?: string }): Markup {
  const { t } = v;
  const { form, errors } = o;
  const byInput = new Map<string, string[]>();
  for (const e of errors) if (e.input) byInput.set(e.input, [...(byInput.get(e.input) ?? []), e.issue]);
  const loose = errors.filter((e) => !e.input);

  const control = (name: string, inner: (attrs: Markup) => Markup) => {
    const id = idOf(name);
    const issues = byInput.get(name);
    const attrs = h`id="${id}" name="${name}"${issues ? h` aria-invalid="true" aria-describedby="e-${id}"` : ''}`;
    return h`${inner(attrs)}<span class="field-error" id="e-${id}"${issues ? '' : h` hidden`}>${issues?.join('; ') ?? ''}</span>`;
  };
  const input = (name: string, label: string, value: string, extra: Markup = h``) =>
    h`<div class="field"><label for="${idOf(name)}">${label}</label>${control(name, (a) => h`<input ${a} value="${value}" ${extra}>`)}</div>`;
  const select = (name: string, label: string, value: string, options: [string, string][]) =>
    h`<div class="field"><label for="${idOf(name)}">${label}</label>${control(
      name,
      (a) => h`<select ${a}>${options.map(([k, text]) => h`<option value="${k}"${k === value ? h` selected` : ''}>${text}</option>`)}</select>`,
    )}</div>`;
  const catalog = (name: string, label: string, value: string, catalogo: string, extra: Markup = h``) =>
    input(name, label, value, h`list="dl-${catalogo}" data-catalog="${catalogo}" autocomplete="off" spellcheck="false" ${extra}`);
  const shown = (tipos: string) => (tipos.split(' ').includes(form.tipo) ? '' : h` hidden`);
  const money = h`inputmode="decimal" autocomplete="off"`;

  const conceptoRow = (c: ConceptoForm, i: number | string) => {
    const n = (k: string) => `conceptos[${i}].${k}`;
    return h`<fieldset class="concepto" data-row="concepto">
<legend>${t.issueConcepto} <span class="row-number">${typeof i === 'number' ? i + 1 : ''}</span></legend>
<div class="grid">
${catalog(n('clave_prod_serv'), t.issueClaveProdServ, c.clave_prod_serv, 'productos-servicios', h`maxlength="100"`)}
${catalog(n('clave_unidad'), t.issueClaveUnidad, c.clave_unidad, 'unidades', h`maxlength="100"`)}
<div class="field wide"><label for="${idOf(n('descripcion'))}">${t.descripcion}</label>${control(n('descripcion'), (a) => h`<input ${a} value="${c.descripcion}" maxlength="1000">`)}</div>
${input(n('cantidad'), t.cantidad, c.cantidad, h`${money} data-amount="cantidad"`)}
${input(n('valor_unitario'), t.valorUnitario, c.valor_unitario, h`${money} data-amount="valor_unitario"`)}
${input(n('descuento'), t.discount, c.descuento, h`${money} data-amount="descuento"`)}
${select(n('objeto_imp'), t.issueObjetoImp, c.objeto_imp, [
  ['02', t.issueObjeto['02']!],
  ['01', t.issueObjeto['01']!],
  ['03', t.issueObjeto['03']!],
  ['04', t.issueObjeto['04']!],
])}
${select(n('iva'), t.issueIva, c.iva, [
  ['16', 'IVA 16 %'],
  ['8', 'IVA 8 %'],
  ['0', 'IVA 0 %'],
  ['exento', t.issueExento],
  ['', t.issueNone],
])}
${select(n('ret_isr'), t.issueRetIsr, c.ret_isr, [['', t.issueNone], ...RET_ISR.map((r): [string, string] => [r, `${percent(r)} %`])])}
${select(n('ret_iva'), t.issueRetIva, c.ret_iva, [['', t.issueNone], ...RET_IVA.map((r): [string, string] => [r, `${percent(r)} %`])])}
<div class="field"><span class="label">${t.importe}</span> <output class="importe" data-importe>—</output></div>
<div class="field"><button type="submit" class="secondary" name="op" value="remove:${i}" formnovalidate data-remove="concepto">${t.issueRemove}</button></div>
</div>
</fieldset>`;
  };

  const documentoRow = (d: DocumentoForm, i: number | string) => {
    const n = (k: string) => `pagos[0].documentos[${i}].${k}`;
    return h`<fieldset class="concepto" data-row="documento">
<legend>${t.issueDocumento} <span class="row-number">${typeof i === 'number' ? i + 1 : ''}</span></legend>
<div class="grid">
${input(n('documento'), t.issueDocumentoRef, d.documento, h`autocomplete="off" spellcheck="false" maxlength="64"`)}
${input(n('imp_pagado'), t.issueImpPagado, d.imp_pagado, h`${money} data-amount="imp_pagado"`)}
${input(n('num_parcialidad'), t.issueParcialidad, d.num_parcialidad, h`inputmode="numeric" autocomplete="off"`)}
<div class="field"><button type="submit" class="secondary" name="op" value="remove-doc:${i}" formnovalidate data-remove="documento">${t.issueRemove}</button></div>
</div>
</fieldset>`;
  };

  return h`<form method="post" action="/console/invoices/new" class="card issue" id="issue" data-draft="${o.draftKey}"${o.fresh ? h` data-fresh` : ''} novalidate
 data-msg-valid="${t.issueValid}" data-msg-checking="${t.issueChecking}" data-msg-restored="${t.issueDraftRestored}" data-msg-failed="${t.failed}"
 data-msg-errors-one="${t.issueHasErrors(1)}" data-msg-errors-many="${t.issueHasErrors(1000).replace('1000', '{n}')}">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="issue_key" value="${randomToken(18)}">
${o.notice ? h`<p class="notice" role="status">${o.notice}</p>` : ''}
<div class="error" role="alert" id="issue-errors" tabindex="-1"${loose.length || errors.length ? '' : h` hidden`}>
<p>${errors.length ? t.issueHasErrors(errors.length) : ''}</p>
<ul id="issue-loose">${loose.map((e) => h`<li>${e.field ? h`<code>${e.field}</code>: ` : ''}${e.issue}${e.rule ? ` (${e.rule})` : ''}</li>`)}</ul>
</div>
<fieldset><legend>${t.tipo}</legend>
<div class="grid">
${select('tipo', t.tipo, form.tipo, [
  ['I', t.tipos.I!],
  ['E', t.tipos.E!],
  ['P', t.tipos.P!],
])}
<div class="field"><button type="submit" class="secondary" name="op" value="refresh" formnovalidate id="change-tipo">${t.issueChangeTipo}</button></div>
${input('serie', t.serie, form.serie, h`maxlength="25" autocomplete="off"`)}
</div>
<div class="grid" data-tipos="I E"${shown('I E')}>
${catalog('forma_pago', t.formaPago, form.forma_pago, 'formas-pago', h`maxlength="2"`)}
${select('metodo_pago', t.metodoPago, form.metodo_pago, [
  ['PUE', 'PUE — Pago en una sola exhibición'],
  ['PPD', 'PPD — Pago en parcialidades o diferido'],
])}
${input('moneda', t.moneda, form.moneda, h`maxlength="3" autocomplete="off"`)}
</div>
</fieldset>

<fieldset id="customer"><legend>${t.receptor}</legend>
<div class="grid">
<div class="field"><label for="client-search">${t.issueClientSearch}</label><input id="client-search" type="search" autocomplete="off" data-client-search aria-controls="${idOf('receptor_id')}"></div>
${select('receptor_id', t.issueClient, form.receptor_id, [['', t.issueTyped], ...o.clients.map((c): [string, string] => [c.id, `${c.rfc} — ${c.nombre}`])])}
</div>
<div class="grid" id="typed-receptor">
${input('receptor.rfc', 'RFC', form.receptor.rfc, h`maxlength="13" autocomplete="off" spellcheck="false"`)}
${input('receptor.nombre', t.issueNombre, form.receptor.nombre, h`maxlength="300" autocomplete="off"`)}
${catalog('receptor.regimen_fiscal', t.issueRegimen, form.receptor.regimen_fiscal, 'regimenes-fiscales', h`maxlength="3"`)}
${catalog('receptor.domicilio_fiscal', t.issueCp, form.receptor.domicilio_fiscal, 'codigos-postales', h`maxlength="5" inputmode="numeric"`)}
${catalog('receptor.uso_cfdi', t.issueUso, form.receptor.uso_cfdi, 'usos-cfdi', h`maxlength="4"`)}
</div>
</fieldset>

<fieldset><legend>${t.issueRelated}</legend>
<div class="grid">
${catalog('cfdi_relacionados[0].tipo_relacion', t.issueTipoRelacion, form.relacion.tipo_relacion, 'tipos-relacion', h`maxlength="2"`)}
<div class="field wide"><label for="${idOf('cfdi_relacionados[0].uuids')}">${t.issueUuids}</label>${control('cfdi_relacionados[0].uuids', (a) => h`<input ${a} value="${form.relacion.uuids}" autocomplete="off" spellcheck="false">`)}</div>
</div>
</fieldset>

<div data-tipos="I E"${shown('I E')} id="conceptos-part">
<h2>${t.conceptos}</h2>
<div id="conceptos">${form.conceptos.map((c, i) => conceptoRow(c, i))}</div>
<p><button type="submit" class="secondary" name="op" value="add" formnovalidate id="add-concepto">${t.issueAdd}</button></p>
<template id="concepto-template">${conceptoRow(emptyConcepto(), '__i__')}</template>
<section class="totals" aria-live="polite" aria-labelledby="h-totals">
<h2 id="h-totals">${t.issueTotals}</h2>
<dl id="totals">
<dt>${t.subtotal}</dt><dd id="t-subtotal">—</dd>
<dt>${t.discount}</dt><dd id="t-descuento">—</dd>
<dt>${t.transferred}</dt><dd id="t-traslados">—</dd>
<dt>${t.withheld}</dt><dd id="t-retenciones">—</dd>
<dt>${t.total}</dt><dd id="t-total">—</dd>
</dl>
<p class="hint">${t.issueTotalsHint}</p>
</section>
</div>

<div data-tipos="P"${shown('P')} id="pago-part">
<h2>${t.issuePago}</h2>
<div class="grid">
${input('pagos[0].fecha_pago', t.issueFechaPago, form.pago.fecha_pago, h`type="date"`)}
${catalog('pagos[0].forma_pago', t.formaPago, form.pago.forma_pago, 'formas-pago', h`maxlength="2"`)}
${input('pagos[0].monto', t.issueMonto, form.pago.monto, h`${money} placeholder="${t.issueMontoHint}"`)}
</div>
<div id="documentos">${form.documentos.map((d, i) => documentoRow(d, i))}</div>
<p><button type="submit" class="secondary" name="op" value="add-doc" formnovalidate id="add-documento">${t.issueAddDocumento}</button></p>
<template id="documento-template">${documentoRow(emptyDocumento(), '__i__')}</template>
</div>

<datalist id="dl-productos-servicios"></datalist><datalist id="dl-unidades"></datalist><datalist id="dl-codigos-postales"></datalist>
<datalist id="dl-formas-pago"></datalist><datalist id="dl-regimenes-fiscales"></datalist><datalist id="dl-usos-cfdi"></datalist><datalist id="dl-tipos-relacion"></datalist>
<div class="actions">
<button type="submit" class="secondary" name="op" value="validate" id="validate">${t.issueValidate}</button>
<button type="submit" name="op" value="issue" id="emit">${t.issueEmit}</button>
<button type="button" class="link" id="discard" hidden>${t.issueDiscard}</button>
<span id="issue-status" role="status"></span>
</div>
</form>
<script src="${ISSUE_SCRIPT_PATH}" defer></script>`;
}

const percent = (rate: string) => (Number(rate) * 100).toFixed(4).replace(/\.?0+$/, '');

/** The catalogs the form searches (the API's names), and nothing else: the route is not a general proxy. */
const SEARCHED = new Set(['productos-servicios', 'unidades', 'codigos-postales', 'formas-pago', 'regimenes-fiscales', 'usos-cfdi', 'tipos-relacion']);

/** What is typed in a search box, as the API is asked it: no control characters (a NUL is a 500 of GET /clients on PostgreSQL), 100 at most. */
const searchText = (q: string | undefined) =>
  [...(q ?? '').slice(0, 400)]
    .filter((ch) => ch.charCodeAt(0) >= 0x20 && ch !== '\x7f')
    .join('')
    .trim()
    .slice(0, 100);

const canIssue = (v: Viewer) => v.role === 'ADMIN' || v.role === 'OPERATOR';

export function mountIssueScreens(web: ConsoleRouter, kit: ConsoleKit) {
  /** What the form shows around the posted values: the clients to pick from, the draft's key (tenant + environment). */
  const context = async (c: ConsoleContext, session: Session) => {
    const [me, clients] = await Promise.all([kit.api(c, session, 'GET', '/api/v1/auth/me'), kit.api(c, session, 'GET', '/api/v1/clients?limit=100')]);
    const tenant = me.status === 200 ? ((await me.json()) as { tenant: { id: string } }).tenant.id : 'tenant';
    const list = clients.status === 200 ? ((await clients.json()) as { data: Client[] }).data : [];
    return { clients: list.map((x) => ({ id: x.id, rfc: x.rfc, nombre: x.nombre })), draftKey: `cfdi-draft:${tenant}:${session.environment}` };
  };
  const render = async (
    c: ConsoleContext,
    session: Session,
    viewer: Viewer,
    form: IssueForm,
    errors: FieldError[],
    status: 200 | 400 = 200,
    fresh = false,
    notice?: string,
  ) =>
    kit.htmlPage(
      c,
      page(viewer, viewer.t.issueTitle, formContent(viewer, { form, errors, ...(await context(c, session)), fresh, ...(notice ? { notice } : {}) })),
      status,
    );
  const forbidden = (c: ConsoleContext, v: Viewer, t: Messages) =>
    kit.refused(c, v, new Response(JSON.stringify({ error: { message: t.forbiddenText } }), { status: 403 }));

  web.get(
    '/console/invoices/new',
    kit.signedIn(async (c, session, viewer) => {
      // The API refuses a VIEWER's issue anyway; the form is not offered to one.
      if (!canIssue(viewer)) return (await forbidden(c, viewer, viewer.t))!;
      return render(c, session, viewer, emptyForm(c.req.query('tipo')), [], 200, true);
    }),
  );

  /** The API's verdict on the form, as JSON for the script: the API's answer, each error with the input it belongs to. */
  web.post(
    '/console/invoices/new/validate',
    kit.signedIn(
      kit.change(async (c, session, _viewer, fields) => {
        if (!['I', 'E', 'P'].includes(fields.tipo ?? ''))
          return c.json({ valid: false, errors: [{ field: 'tipo', issue: 'must be one of I, E, P', input: 'tipo' }], warnings: [] }, 200);
        const form = formFromFields(fields);
        const request = requestOf(form);
        const res = await kit.api(c, session, 'POST', '/api/v1/cfdis/validate', request);
        if (res.status === 200) {
          const body = (await res.clone().json()) as { valid: boolean; warnings: string[] };
          return c.json({ valid: body.valid, errors: await errorsOf(res, form, request), warnings: body.warnings }, 200, { 'Cache-Control': 'no-store' });
        }
        if (res.status === 400) return c.json({ valid: false, errors: await errorsOf(res, form, request), warnings: [] }, 200, { 'Cache-Control': 'no-store' });
        return c.json(
          await res.json().catch(() => ({ error: { message: `HTTP ${res.status}` } })),
          res.status === 403 || res.status === 429 ? res.status : 502,
        );
      }),
    ),
  );

  web.post(
    '/console/invoices/new',
    kit.signedIn(
      kit.change(async (c, session, viewer, fields) => {
        const form = formFromFields(fields);
        const op = fields.op ?? 'issue';
        // The form offers three tipos; another is said beside the switch rather than read as an Ingreso.
        if (!['I', 'E', 'P'].includes(fields.tipo ?? '') && op !== 'refresh')
          return render(c, session, viewer, form, [{ field: 'tipo', issue: 'must be one of I, E, P', input: 'tipo' }], 400);
        // The form's own steps (no script): rows added or removed, the tipo changed; an op it does not know changes nothing.
        if (op !== 'issue' && op !== 'validate') {
          if (op === 'add' && form.conceptos.length < MAX_ROWS) form.conceptos.push(emptyConcepto());
          if (op === 'add-doc' && form.documentos.length < MAX_ROWS) form.documentos.push(emptyDocumento());
          const removed = /^remove(-doc)?:(\d+)$/.exec(op);
          if (removed) {
            const list: unknown[] = removed[1] ? form.documentos : form.conceptos;
            if (list.length > 1) list.splice(Number(removed[2]), 1);
          }
          return render(c, session, viewer, form, []);
        }
        const request = requestOf(form);
        const checked = await kit.api(c, session, 'POST', '/api/v1/cfdis/validate', request);
        if (checked.status !== 200 && checked.status !== 400) return (await kit.refused(c, viewer, checked))!;
        const verdict = checked.status === 200 ? ((await checked.clone().json()) as { valid: boolean }) : { valid: false };
        if (!verdict.valid) return render(c, session, viewer, form, await errorsOf(checked, form, request), 400);
        if (op === 'validate') return render(c, session, viewer, form, [], 200, false, viewer.t.issueValid);
        // A page's form sends its key as the Idempotency-Key: a second click, or a resend after a lost answer, gets the
        // first one's invoice instead of issuing it twice. Each page the form is rendered on has a new key.
        const key = /^[A-Za-z0-9_-]{16,64}$/.test(fields.issue_key ?? '') ? { 'idempotency-key': `console-${fields.issue_key}` } : undefined;
        const res = await kit.api(c, session, 'POST', '/api/v1/cfdis', request, key);
        if (res.status === 201 || res.status === 202) {
          const made = (await res.json()) as { id: string };
          return kit.redirect(c, `/console/invoices/${encodeURIComponent(made.id)}`);
        }
        if (res.status === 400) return render(c, session, viewer, form, await errorsOf(res, form, request), 400);
        return (await kit.refused(c, viewer, res))!;
      }),
    ),
  );

  /** A catalog search for the form's inputs, asked of the API as this user (the browser holds no API token). */
  web.get(
    '/console/catalogos/:catalogo',
    kit.signedIn(async (c, session) => {
      const catalogo = c.req.param('catalogo') ?? '';
      if (!SEARCHED.has(catalogo))
        return c.json(
          { error: { message: 'Not a catalog the form searches', details: [{ field: 'catalogo', issue: `must be one of ${[...SEARCHED].join(', ')}` }] } },
          404,
        );
      const q = searchText(c.req.query('q'));
      const res = await kit.api(c, session, 'GET', `/api/v1/catalogos/${catalogo}?${new URLSearchParams({ limit: '20', ...(q ? { q } : {}) })}`);
      if (res.status !== 200) return c.json(await res.json().catch(() => ({})), res.status === 400 ? 400 : 502);
      const body = (await res.json()) as { data: { clave: string; descripcion: string }[] };
      // A key typed as it is (E48, H87): the words' search does not read keys of letters, the key's own page does.
      if (/^[A-Za-z0-9]{1,8}$/.test(q) && !body.data.some((e) => e.clave.toUpperCase() === q.toUpperCase())) {
        const one = await kit.api(c, session, 'GET', `/api/v1/catalogos/${catalogo}/${encodeURIComponent(q.toUpperCase())}`);
        if (one.status === 200) body.data.unshift((await one.json()) as { clave: string; descripcion: string });
      }
      return c.json({ data: body.data.map((e) => ({ clave: e.clave, descripcion: e.descripcion })) }, 200, { 'Cache-Control': 'no-store' });
    }),
  );

  /** The clients whose RFC or name matches, for the customer picker. */
  web.get(
    '/console/invoices/new/clients',
    kit.signedIn(async (c, session) => {
      const q = searchText(c.req.query('q'));
      const res = await kit.api(c, session, 'GET', `/api/v1/clients?${new URLSearchParams({ limit: '50', ...(q ? { q } : {}) })}`);
      if (res.status !== 200) return c.json(await res.json().catch(() => ({})), res.status === 400 ? 400 : 502);
      const body = (await res.json()) as { data: Client[] };
      return c.json({ data: body.data.map((x) => ({ id: x.id, rfc: x.rfc, nombre: x.nombre })) }, 200, { 'Cache-Control': 'no-store' });
    }),
  );
}
