/**
 * The issue form's script (/console/invoices/new), served as a file of its own (the CSP allows no inline script).
 * The form posts without it; with it: the tipo switch and the rows change in place, catalogs and clients are searched
 * as one types (datalists filled from the console's JSON routes), totals are computed live with exact decimals
 * (BigInt millionths, display only: the API computes the real ones), the API's validation is shown beside each field
 * as one goes and before "Emitir", and a draft is kept in localStorage (per tenant and environment) until issued.
 */
export const ISSUE_SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('issue');
  if (!form) return;
  var draftKey = form.getAttribute('data-draft');
  var status = document.getElementById('issue-status');
  var msg = function (name) { return form.getAttribute('data-msg-' + name) || ''; };
  var byName = function (name) { return form.querySelector('[name="' + name.replace(/"/g, '') + '"]'); };
  var debounce = function (fn, ms) { var timer; return function () { var args = arguments; clearTimeout(timer); timer = setTimeout(function () { fn.apply(null, args); }, ms); }; };

  // Exact decimals: a decimal text as BigInt millionths (null when it is not one).
  var SCALE = 1000000n;
  function dec(text) {
    var m = /^\\s*(\\d{1,18})(?:\\.(\\d{1,6}))?\\s*$/.exec(text || '');
    if (!m) return null;
    return BigInt(m[1]) * SCALE + BigInt((m[2] || '').padEnd(6, '0'));
  }
  function mul(a, b) { var p = a * b; return (p + SCALE / 2n) / SCALE; } // both non-negative: half up
  function money(micros) {
    var neg = micros < 0n; if (neg) micros = -micros;
    var cents = (micros + 5000n) / 10000n;
    var whole = (cents / 100n).toString().replace(/\\B(?=(\\d{3})+(?!\\d))/g, ',');
    var frac = (cents % 100n).toString().padStart(2, '0');
    return (neg ? '-' : '') + whole + '.' + frac;
  }
  var IVA = { '16': 160000n, '8': 80000n, '0': 0n };

  function totals() {
    var sub = 0n, desc = 0n, tras = 0n, ret = 0n, ok = true;
    Array.prototype.forEach.call(document.querySelectorAll('#conceptos [data-row="concepto"]'), function (row) {
      var get = function (k) { var el = row.querySelector('[name$="].' + k + '"]'); return el ? el.value : ''; };
      var cantidad = dec(get('cantidad')), unit = dec(get('valor_unitario')), discount = get('descuento') ? dec(get('descuento')) : 0n;
      var out = row.querySelector('[data-importe]');
      if (cantidad === null || unit === null || discount === null) { ok = false; if (out) out.textContent = '—'; return; }
      var importe = mul(cantidad, unit);
      if (out) out.textContent = money(importe);
      sub += importe; desc += discount;
      if (get('objeto_imp') !== '02') return;
      var base = importe - discount;
      if (base < 0n) { ok = false; return; }
      var iva = IVA[get('iva')];
      if (iva !== undefined) tras += mul(base, iva);
      var isr = dec(get('ret_isr')), riva = dec(get('ret_iva'));
      if (isr !== null) ret += mul(base, isr);
      if (riva !== null) ret += mul(base, riva);
    });
    var show = function (id, v) { var el = document.getElementById(id); if (el) el.textContent = ok ? money(v) : '—'; };
    show('t-subtotal', sub); show('t-descuento', desc); show('t-traslados', tras); show('t-retenciones', ret);
    show('t-total', sub - desc + tras - ret);
  }

  // The tipo switch: the parts of the other tipos are hidden (and the no-script button is not needed).
  var tipo = byName('tipo');
  function showTipo() {
    Array.prototype.forEach.call(form.querySelectorAll('[data-tipos]'), function (el) {
      el.hidden = el.getAttribute('data-tipos').split(' ').indexOf(tipo.value) < 0;
    });
  }
  var changeTipo = document.getElementById('change-tipo');
  if (changeTipo) changeTipo.hidden = true;
  tipo.addEventListener('change', showTipo);

  // The customer: a client picked hides the typed fields; the list is searched as one types.
  var client = byName('receptor_id');
  var typed = document.getElementById('typed-receptor');
  function showClient() { typed.hidden = !!client.value; }
  client.addEventListener('change', showClient);
  var clientSearch = document.querySelector('[data-client-search]');
  clientSearch.addEventListener('input', debounce(function () {
    fetch('/console/invoices/new/clients?q=' + encodeURIComponent(clientSearch.value.trim()), { headers: { accept: 'application/json' } })
      .then(function (res) { return res.ok ? res.json() : { data: [] }; })
      .then(function (body) {
        var keep = client.value;
        while (client.options.length > 1) client.remove(1);
        body.data.forEach(function (c) { client.add(new Option(c.rfc + ' — ' + c.nombre, c.id, false, c.id === keep)); });
        if (body.data.length === 1 && clientSearch.value.trim()) { client.value = body.data[0].id; showClient(); save(); }
      });
  }, 250));

  // Catalog search: the input's datalist is filled with the API's matches for what is typed.
  var asked = {};
  function search(input) {
    var catalogo = input.getAttribute('data-catalog');
    var q = input.value.trim();
    var key = catalogo + '?' + q;
    var list = document.getElementById('dl-' + catalogo);
    var fill = function (data) {
      list.textContent = '';
      data.forEach(function (e) { var o = document.createElement('option'); o.value = e.clave; o.label = e.clave + ' — ' + e.descripcion; o.textContent = o.label; list.appendChild(o); });
    };
    if (asked[key]) { fill(asked[key]); return; }
    fetch('/console/catalogos/' + catalogo + '?q=' + encodeURIComponent(q), { headers: { accept: 'application/json' } })
      .then(function (res) { return res.ok ? res.json() : { data: [] }; })
      .then(function (body) { asked[key] = body.data; if (input.value.trim() === q) fill(body.data); });
  }
  var searchSoon = debounce(search, 200);
  form.addEventListener('input', function (event) { if (event.target.hasAttribute && event.target.hasAttribute('data-catalog')) searchSoon(event.target); });
  form.addEventListener('focusin', function (event) { if (event.target.hasAttribute && event.target.hasAttribute('data-catalog')) search(event.target); });

  // Rows: added from the template, removed in place, renumbered so that names stay the API's paths.
  function renumber(containerId, kind) {
    var rows = document.querySelectorAll('#' + containerId + ' > [data-row]');
    Array.prototype.forEach.call(rows, function (row, i) {
      var fix = function (v) {
        return kind === 'concepto'
          ? v.replace(/conceptos\\[(\\d+|__i__)\\]/g, 'conceptos[' + i + ']').replace(/conceptos-(\\d+|__i__)-/g, 'conceptos-' + i + '-')
          : v.replace(/documentos\\[(\\d+|__i__)\\]/g, 'documentos[' + i + ']').replace(/documentos-(\\d+|__i__)-/g, 'documentos-' + i + '-');
      };
      Array.prototype.forEach.call(row.querySelectorAll('[name],[id],[for],[aria-describedby]'), function (el) {
        ['name', 'id', 'for', 'aria-describedby'].forEach(function (a) { if (el.hasAttribute(a)) el.setAttribute(a, fix(el.getAttribute(a))); });
      });
      var remove = row.querySelector('[data-remove]');
      if (remove) remove.value = (kind === 'concepto' ? 'remove:' : 'remove-doc:') + i;
      var number = row.querySelector('.row-number');
      if (number) number.textContent = String(i + 1);
    });
    return rows.length;
  }
  function addRow(kind) {
    var container = document.getElementById(kind === 'concepto' ? 'conceptos' : 'documentos');
    var template = document.getElementById(kind + '-template');
    container.appendChild(template.content.cloneNode(true));
    renumber(container.id, kind);
    return container.lastElementChild;
  }
  function rowCount(kind) { return document.querySelectorAll('#' + (kind === 'concepto' ? 'conceptos' : 'documentos') + ' > [data-row]').length; }
  form.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button');
    if (!button) return;
    if (button.id === 'add-concepto' || button.id === 'add-documento') {
      event.preventDefault();
      var row = addRow(button.id === 'add-concepto' ? 'concepto' : 'documento');
      var first = row.querySelector('input'); if (first) first.focus();
      totals(); save();
    } else if (button.hasAttribute('data-remove')) {
      event.preventDefault();
      var kind = button.getAttribute('data-remove');
      if (rowCount(kind) < 2) return;
      button.closest('[data-row]').remove();
      renumber(kind === 'concepto' ? 'conceptos' : 'documentos', kind);
      totals(); save();
    } else if (button.id === 'discard') {
      event.preventDefault();
      localStorage.removeItem(draftKey);
      location.assign('/console/invoices/new');
    }
  });

  // The draft: every field, and how many rows of each kind.
  function fields() {
    var out = [];
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.name && el.name !== 'csrf' && el.name !== 'op' && el.name !== 'issue_key' && (el instanceof HTMLInputElement || el instanceof HTMLSelectElement)) out.push([el.name, el.value]);
    });
    return out;
  }
  function save() {
    try { localStorage.setItem(draftKey, JSON.stringify({ fields: fields(), conceptos: rowCount('concepto'), documentos: rowCount('documento') })); } catch (e) { /* storage full or off */ }
  }
  var saveSoon = debounce(save, 200);
  function restore() {
    var draft;
    try { draft = JSON.parse(localStorage.getItem(draftKey) || 'null'); } catch (e) { draft = null; }
    if (!draft || !draft.fields) return false;
    while (rowCount('concepto') < Math.min(draft.conceptos || 1, 50)) addRow('concepto');
    while (rowCount('documento') < Math.min(draft.documentos || 1, 50)) addRow('documento');
    draft.fields.forEach(function (f) { var el = byName(f[0]); if (el) el.value = f[1]; });
    return true;
  }

  // The API's verdict, beside each field (as one goes: only the fields touched; before issuing: every one).
  function clearError(el) {
    el.removeAttribute('aria-invalid');
    el.removeAttribute('aria-describedby');
    var note = document.getElementById('e-' + el.id);
    if (note) { note.textContent = ''; note.hidden = true; }
  }
  function showErrors(errors, all) {
    var box = document.getElementById('issue-errors');
    var loose = document.getElementById('issue-loose');
    Array.prototype.forEach.call(form.querySelectorAll('input[name],select[name]'), function (el) { if (all || el.hasAttribute('data-touched')) clearError(el); });
    var issues = {};
    var rest = [];
    errors.forEach(function (e) {
      var el = e.input ? byName(e.input) : null;
      if (!el) { rest.push(e); return; }
      if (!all && !el.hasAttribute('data-touched')) return;
      (issues[e.input] = issues[e.input] || []).push(e.issue + (e.rule ? ' (' + e.rule + ')' : ''));
    });
    Object.keys(issues).forEach(function (name) {
      var el = byName(name);
      var note = document.getElementById('e-' + el.id);
      el.setAttribute('aria-invalid', 'true');
      if (note) { note.textContent = issues[name].join('; '); note.hidden = false; el.setAttribute('aria-describedby', note.id); }
    });
    // As one goes, the summary at the top goes once nothing is left to say.
    if (!all) { if (errors.length === 0) { box.hidden = true; loose.textContent = ''; } return; }
    loose.textContent = '';
    rest.forEach(function (e) { var li = document.createElement('li'); li.textContent = (e.field ? e.field + ': ' : '') + e.issue + (e.rule ? ' (' + e.rule + ')' : ''); loose.appendChild(li); });
    box.hidden = errors.length === 0;
    box.querySelector('p').textContent = errors.length === 0 ? '' : (errors.length === 1 ? msg('errors-one') : msg('errors-many').replace('{n}', String(errors.length)));
  }
  function validate(all) {
    return fetch('/console/invoices/new/validate', { method: 'POST', body: new URLSearchParams(new FormData(form)), headers: { accept: 'application/json' } })
      .then(function (res) { return res.json().then(function (body) { return { ok: res.ok, body: body }; }); })
      .then(function (r) {
        if (!r.ok) { if (all) status.textContent = (r.body.error && r.body.error.message) || msg('failed'); return false; }
        showErrors(r.body.errors || [], all);
        return r.body.valid === true;
      });
  }
  var validateSoon = debounce(function () { validate(false); }, 600);
  form.addEventListener('input', function () { totals(); saveSoon(); });
  form.addEventListener('change', function (event) {
    if (event.target.name) event.target.setAttribute('data-touched', '');
    totals(); saveSoon(); validateSoon();
  });

  form.addEventListener('submit', function (event) {
    var submitter = event.submitter;
    if (!submitter || (submitter.id !== 'validate' && submitter.id !== 'emit')) return;
    event.preventDefault();
    status.textContent = msg('checking');
    validate(true).then(function (valid) {
      if (!valid) { status.textContent = ''; var bad = form.querySelector('[aria-invalid="true"]'); if (bad) bad.focus(); else document.getElementById('issue-errors').focus(); return; }
      if (submitter.id === 'validate') { status.textContent = msg('valid'); return; }
      // Issued from here on: the draft is done with (a refusal re-renders the form with its values, saved again).
      localStorage.removeItem(draftKey);
      var op = document.createElement('input'); op.type = 'hidden'; op.name = 'op'; op.value = 'issue'; form.appendChild(op);
      submitter.disabled = true;
      form.submit();
    }, function () { status.textContent = msg('failed'); });
  });

  var discard = document.getElementById('discard');
  if (form.hasAttribute('data-fresh')) {
    if (restore()) { status.textContent = msg('restored'); discard.hidden = false; }
  } else save();
  showTipo(); showClient(); totals();
})();
`;
