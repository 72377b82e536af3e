/**
 * The console's only script, served as a file (the CSP allows no inline script). The pages work without it; it
 * asks before a change that cannot be undone (a form with data-confirm) and leaves empty filters out of the URL.
 */
export const CONSOLE_SCRIPT = `'use strict';
document.addEventListener('submit', function (event) {
  var form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  var question = form.getAttribute('data-confirm');
  if (question && !window.confirm(question)) { event.preventDefault(); return; }
  if (form.method.toLowerCase() === 'get') {
    Array.prototype.forEach.call(form.elements, function (el) {
      if ((el instanceof HTMLInputElement || el instanceof HTMLSelectElement) && el.name && el.value === '') el.disabled = true;
    });
  }
});
window.addEventListener('pageshow', function () {
  Array.prototype.forEach.call(document.querySelectorAll('form[method="get"] [disabled]'), function (el) { el.disabled = false; });
});
`;
