import { $ } from './dom.js';

let timer;

/** Shows a message above the page; errors stay until replaced, notes fade after a few seconds. */
export function showMessage(text, kind = 'error') {
  const el = $('#message');
  el.textContent = text;
  el.className = `message ${kind}`;
  el.hidden = false;
  clearTimeout(timer);
  if (kind !== 'error') timer = setTimeout(clearMessage, 4000);
}

export function clearMessage() {
  const el = $('#message');
  el.hidden = true;
  el.textContent = '';
}
