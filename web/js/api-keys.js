// API keys for machines (docs/api.md, "API keys"): create (the key is shown this once), list, revoke.
import { api } from './api.js';
import { dangerButton } from './confirm.js';
import { field, h, input } from './dom.js';
import { submitting } from './form-errors.js';
import { showMessage } from './message.js';

export function apiKeysPanel() {
  const list = h('tbody');
  const table = h('table', { class: 'list', 'data-list': 'api-keys' }, h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Created'), h('th', {}, 'Last used'), h('th', {}, h('span', { class: 'sr-only' }, 'Actions')))), list);
  const empty = h('p', { class: 'muted' }, 'No API keys.');
  const shown = h('div', { class: 'new-key', hidden: true, role: 'status' });
  const form = h('form', { class: 'grid', 'data-form': 'api-key', novalidate: true },
    field('Name', input('name', { maxlength: 64, required: true, placeholder: 'prometheus', autocomplete: 'off' }), 'letters, digits, . _ - and single spaces'),
    h('p', { class: 'form-error', role: 'alert', hidden: true }),
    h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create key')));

  async function refresh() {
    try {
      const keys = await api('GET', '/auth/keys');
      list.replaceChildren(...keys.map((k) => h('tr', { 'data-id': k.id },
        h('td', {}, k.name), h('td', {}, new Date(k.created_at).toLocaleString()), h('td', {}, k.last_used_at ? new Date(k.last_used_at).toLocaleString() : 'never'),
        h('td', { class: 'actions' }, dangerButton('Revoke', 'Confirm revoke', async () => {
          try {
            await api('DELETE', `/auth/keys/${encodeURIComponent(k.id)}`);
            showMessage(`key ${k.name} revoked`, 'note');
          } catch (err) {
            showMessage(err.message);
          }
          await refresh();
        }, { 'data-action': 'revoke' })))));
      table.hidden = keys.length === 0;
      empty.hidden = keys.length > 0;
    } catch (err) {
      empty.textContent = err.message;
      table.hidden = true;
    }
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    let created;
    const ok = await submitting(form, async () => {
      created = await api('POST', '/auth/keys', { name: form.elements.name.value });
    });
    if (!ok) return;
    form.elements.name.value = '';
    const key = h('input', { class: 'mono', readonly: true, value: created.key, 'aria-label': `the new key ${created.name}`, 'data-new-key': '' });
    shown.replaceChildren(h('p', {}, `Key “${created.name}”: copy it now, it is not shown again.`), key,
      h('button', { type: 'button', class: 'small', onclick: () => { shown.hidden = true; shown.replaceChildren(); } }, 'Done'));
    shown.hidden = false;
    key.select();
    await refresh();
  });
  refresh();
  return h('div', { class: 'stack' }, table, empty, shown, form);
}
