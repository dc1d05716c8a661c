// Webhooks (GET, POST, DELETE /api/webhooks). Headers are write-only: sent once when added, never shown again
// (the API never returns them, and the form forgets them).
import { api } from './api.js';
import { dangerButton } from './confirm.js';
import { checkbox, field, h, input } from './dom.js';
import { submitting } from './form-errors.js';
import { showMessage } from './message.js';

/** Pure: "Name: value" lines → a headers object; a line without a colon is an error naming it. */
export function parseHeaders(text) {
  const headers = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`headers: "${line}" is not "Name: value"`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

export function webhooksView(root) {
  const list = h('tbody');
  const table = h('table', { class: 'list', 'data-list': 'webhooks' }, h('thead', {}, h('tr', {}, h('th', {}, 'URL'), h('th', {}, 'Events'), h('th', {}, 'Added'), h('th', {}, h('span', { class: 'sr-only' }, 'Actions')))), list);
  const empty = h('p', { class: 'muted' }, 'No webhooks.');
  const form = h('form', { class: 'grid', 'data-form': 'webhook', novalidate: true },
    field('URL', input('url', { type: 'url', required: true, maxlength: 2048, placeholder: 'https://example.net/encoder-events' }), 'HTTP or HTTPS; called with a JSON POST, 5 s timeout, no retries'),
    h('fieldset', { class: 'plain events' }, h('legend', {}, 'Events'),
      field('pipeline.started', checkbox('events', true, { value: 'pipeline.started' })),
      field('pipeline.stopped', checkbox('events', true, { value: 'pipeline.stopped' }))),
    field('Headers (optional)', h('textarea', { name: 'headers', rows: 3, spellcheck: 'false', autocomplete: 'off', placeholder: 'Authorization: Bearer …\nX-Site: north' }), 'one "Name: value" a line, at most 10; stored and sent, never shown again'),
    h('p', { class: 'form-error', role: 'alert', hidden: true }),
    h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'primary' }, 'Add webhook')));

  async function refresh() {
    try {
      const hooks = await api('GET', '/webhooks');
      list.replaceChildren(...hooks.map((w) => h('tr', { 'data-id': w.id },
        h('td', { class: 'mono' }, w.url), h('td', {}, w.events.join(', ')), h('td', {}, new Date(w.created_at).toLocaleString()),
        h('td', { class: 'actions' }, dangerButton('Delete', 'Confirm delete', async () => {
          try {
            await api('DELETE', `/webhooks/${encodeURIComponent(w.id)}`);
            showMessage('webhook deleted', 'note');
          } catch (err) {
            showMessage(err.message);
          }
          await refresh();
        }, { 'data-action': 'delete' })))));
      table.hidden = hooks.length === 0;
      empty.hidden = hooks.length > 0;
    } catch (err) {
      showMessage(err.message);
    }
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const ok = await submitting(form, async () => {
      const events = [...form.querySelectorAll('[name=events]:checked')].map((el) => el.value);
      const body = { url: form.elements.url.value.trim(), events };
      const headers = parseHeaders(form.elements.headers.value);
      if (Object.keys(headers).length) body.headers = headers;
      await api('POST', '/webhooks', body);
    });
    if (ok) {
      form.elements.url.value = '';
      form.elements.headers.value = '';
      showMessage('webhook added', 'note');
      await refresh();
    }
  });

  root.replaceChildren(h('section', { class: 'card' }, h('h1', {}, 'Webhooks'), table, empty),
    h('section', { class: 'card' }, h('h2', {}, 'Add a webhook'), form));
  refresh();
  return () => {};
}
