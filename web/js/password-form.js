// The password (PUT, DELETE /api/auth/password): set the first one, change it (every other session ends), or
// remove it (authentication off, every session ends). After the first one is set this tab logs in with it.
import { api, token } from './api.js';
import { dangerButton } from './confirm.js';
import { field, h, input } from './dom.js';
import { clearErrors, showErrors, submitting } from './form-errors.js';
import { showMessage } from './message.js';

export function passwordForm({ authEnabled, onAuthChanged }) {
  const password = input('password', { type: 'password', autocomplete: 'new-password', minlength: 12, required: true });
  const repeat = input('repeat', { type: 'password', autocomplete: 'new-password', required: true });
  const note = h('p', { class: 'muted' }, authEnabled
    ? 'A password is set. Changing it ends every other session (API keys stay); removing it opens the API to anyone who reaches it.'
    : 'No password is set: the API is open to anyone who reaches it. Set one (at least 12 characters).');
  const remove = authEnabled ? dangerButton('Remove password', 'Confirm: remove password', async () => {
    clearErrors(form);
    try {
      await api('DELETE', '/auth/password');
      token.clear();
      showMessage('password removed: authentication is off', 'note');
      onAuthChanged(false);
    } catch (err) {
      showErrors(form, err);
    }
  }, { 'data-action': 'remove-password' }) : null;
  const form = h('form', { class: 'grid', 'data-form': 'password', novalidate: true },
    field(authEnabled ? 'New password' : 'Password', password, 'at least 12 characters'),
    field('Repeat it', repeat),
    h('p', { class: 'form-error', role: 'alert', hidden: true }),
    h('div', { class: 'form-actions' }, remove, h('button', { type: 'submit', class: 'primary' }, authEnabled ? 'Change password' : 'Set password')));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const ok = await submitting(form, async () => {
      if (password.value !== repeat.value) throw new Error('repeat: the two passwords differ');
      await api('PUT', '/auth/password', { password: password.value });
      if (!authEnabled) token.set((await api('POST', '/auth/login', { password: password.value })).token);
    });
    if (!ok) return;
    password.value = '';
    repeat.value = '';
    showMessage(authEnabled ? 'password changed: other sessions have ended' : 'password set: authentication is on', 'note');
    onAuthChanged(true);
  });
  return h('div', { class: 'stack' }, note, form);
}
