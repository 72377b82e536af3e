/**
 * The portal page's script, served as a file of its own so the CSP can forbid inline scripts. It calls the
 * portal's JSON endpoints on the page's own origin and shows their answers; it builds DOM nodes, never HTML text.
 */
export const PORTAL_SCRIPT = `(function () {
  'use strict';
  var main = document.getElementById('portal');
  var base = main.getAttribute('data-base');
  var form = document.getElementById('formulario');
  var errores = document.getElementById('errores');
  var ticket = document.getElementById('ticket');
  var resultado = document.getElementById('resultado');
  var enviar = document.getElementById('facturar');
  var money = new Intl.NumberFormat('es-MX', { style: 'currency', currency: 'MXN' });

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function value(name) {
    var input = form.elements[name];
    return input ? input.value.trim() : '';
  }
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }
  function showErrors(message, details) {
    clear(errores);
    var marked = form.querySelectorAll('[aria-invalid]');
    for (var i = 0; i < marked.length; i++) marked[i].removeAttribute('aria-invalid');
    if (!message) { errores.hidden = true; return; }
    errores.appendChild(el('p', { class: 'titulo' }, message));
    var list = el('ul');
    (details || []).forEach(function (d) {
      var name = String(d.field || '').split('.').pop();
      var input = form.elements[name];
      if (input) input.setAttribute('aria-invalid', 'true');
      var label = input && input.labels && input.labels[0] ? input.labels[0].textContent + ': ' : '';
      var item = el('li', { 'data-field': d.field || '' }, label + d.issue);
      if (d.rule) {
        item.setAttribute('data-rule', d.rule);
        item.appendChild(document.createTextNode(' '));
        item.appendChild(el('span', { class: 'regla' }, '(regla del SAT ' + d.rule + ')'));
      }
      list.appendChild(item);
    });
    if (list.firstChild) errores.appendChild(list);
    errores.hidden = false;
    errores.focus();
  }
  function request(method, path, body) {
    var init = { method: method, headers: { accept: 'application/json' } };
    if (body) { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch(base + path, init).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (json) {
        if (res.ok) return json;
        var e = json && json.error ? json.error : { message: 'Error ' + res.status, details: [] };
        if (res.status === 429) {
          var wait = res.headers.get('retry-after');
          e = { message: 'Demasiados intentos desde tu conexión: espera ' + (wait || 'unos') + ' segundos y vuelve a intentarlo.', details: [] };
        }
        throw e;
      });
    }, function () {
      throw { message: 'No se pudo conectar con el servidor: revisa tu conexión e inténtalo de nuevo.', details: [] };
    });
  }

  function showTicket(t) {
    clear(ticket);
    ticket.appendChild(el('h2', {}, 'Ticket ' + t.folio));
    var dl = el('dl');
    dl.appendChild(el('dt', {}, 'Fecha'));
    dl.appendChild(el('dd', {}, new Date(t.fecha).toLocaleString('es-MX')));
    dl.appendChild(el('dt', {}, 'Total'));
    dl.appendChild(el('dd', { id: 'ticket-total' }, money.format(Number(t.total))));
    ticket.appendChild(dl);
    var table = el('table');
    var head = el('tr');
    ['Cantidad', 'Descripción', 'Importe'].forEach(function (h) { head.appendChild(el('th', {}, h)); });
    table.appendChild(head);
    t.conceptos.forEach(function (c) {
      var row = el('tr');
      row.appendChild(el('td', {}, c.cantidad));
      row.appendChild(el('td', {}, c.descripcion));
      row.appendChild(el('td', {}, money.format(Number(c.importe))));
      table.appendChild(row);
    });
    ticket.appendChild(table);
    if (!t.can_invoice) ticket.appendChild(el('p', { class: 'aviso', id: 'aviso-ticket' }, t.reason));
    if (t.deadline) ticket.appendChild(el('p', { class: 'nota', id: 'plazo' }, t.deadline));
    if (t.can_download) ticket.appendChild(downloadAgain());
    ticket.hidden = false;
    enviar.disabled = !t.can_invoice;
  }

  function lookup() {
    var clave = value('clave');
    if (!clave) { showErrors('Escribe la clave que aparece en tu ticket.', [{ field: 'clave', issue: 'Falta la clave.' }]); return; }
    showErrors();
    request('GET', '/ticket?clave=' + encodeURIComponent(clave)).then(showTicket, function (e) {
      ticket.hidden = true;
      showErrors(e.message, e.details);
    });
  }

  function download(label, path, id) {
    return el('a', { href: base + path, id: id, download: '' }, label);
  }

  // An invoiced ticket: its PDF and XML again, with the RFC it was invoiced to (the links follow what is typed).
  function downloadAgain() {
    var box = el('div', { id: 'descargar-de-nuevo' });
    box.appendChild(el('label', { for: 'rfc-descarga' }, 'Descarga tu factura otra vez: escribe el RFC al que la emitiste'));
    var input = el('input', { id: 'rfc-descarga', maxlength: '13', autocomplete: 'off', spellcheck: 'false' });
    box.appendChild(input);
    var links = el('p', { class: 'descargas' });
    var pdf = download('Descargar PDF', '', 'descargar-otra-vez-pdf');
    var xml = download('Descargar XML', '', 'descargar-otra-vez-xml');
    links.appendChild(pdf);
    links.appendChild(xml);
    box.appendChild(links);
    function update() {
      var q = '?clave=' + encodeURIComponent(value('clave')) + '&rfc=' + encodeURIComponent(input.value.trim().toUpperCase());
      pdf.setAttribute('href', base + '/ticket/pdf' + q);
      xml.setAttribute('href', base + '/ticket/xml' + q);
    }
    input.addEventListener('input', update);
    update();
    return box;
  }

  function showResult(r) {
    clear(resultado);
    resultado.appendChild(el('h2', {}, '¡Listo! Tu factura fue emitida'));
    var uuid = el('p', {}, 'Folio fiscal (UUID): ');
    uuid.appendChild(el('code', { id: 'uuid' }, r.uuid || 'en proceso de timbrado'));
    resultado.appendChild(uuid);
    if (r.uuid) {
      var q = '?clave=' + encodeURIComponent(value('clave')) + '&rfc=' + encodeURIComponent(value('rfc'));
      var links = el('p', { class: 'descargas' });
      links.appendChild(download('Descargar PDF', '/ticket/pdf' + q, 'descargar-pdf'));
      links.appendChild(download('Descargar XML', '/ticket/xml' + q, 'descargar-xml'));
      resultado.appendChild(links);
    } else {
      resultado.appendChild(el('p', {}, 'El SAT está tardando en timbrarla: vuelve a abrir esta página en unos minutos para descargarla.'));
    }
    var notes = {
      queued: 'También te la enviamos por correo a ' + (r.email && r.email.to) + '.',
      unavailable: 'Este comercio no tiene configurado el envío por correo: descarga tu factura aquí.',
    };
    var note = r.email && notes[r.email.status];
    if (note) resultado.appendChild(el('p', { id: 'correo' }, note));
    resultado.hidden = false;
    form.hidden = true;
    ticket.hidden = true;
  }

  document.getElementById('buscar').addEventListener('click', lookup);
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    showErrors();
    enviar.disabled = true;
    var body = {
      clave: value('clave'),
      receptor: {
        rfc: value('rfc').toUpperCase(),
        nombre: value('nombre').toUpperCase(),
        domicilio_fiscal: value('domicilio_fiscal'),
        regimen_fiscal: value('regimen_fiscal'),
        uso_cfdi: value('uso_cfdi'),
      },
    };
    if (value('email')) body.email = value('email');
    request('POST', '/ticket/invoice', body).then(showResult, function (e) {
      enviar.disabled = false;
      showErrors(e.message, e.details);
    });
  });
  if (value('clave')) lookup();
})();
`;
