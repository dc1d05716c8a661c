// Persistent storage of one pipeline (POST, PATCH, DELETE /api/pipeline/{id}/store): store with auto_start and
// description, change them, remove the stored copy (the active pipeline stays).
import { api, pipelinePath } from './api.js';
import { dangerButton } from './confirm.js';
import { checkbox, field, h, input } from './dom.js';
import { bodyOf, clearErrors, fill, showErrors, submitting } from './form-errors.js';
import { showMessage } from './message.js';

export function storagePanel(getPipeline) {
  const note = h('p', { class: 'muted', 'data-stored': '' });
  const submit = h('button', { type: 'submit', class: 'primary' });
  const unstore = dangerButton('Remove from storage', 'Confirm: remove stored copy', async () => {
    clearErrors(form);
    try {
      await api('DELETE', `${pipelinePath(getPipeline().id)}/store`);
      showMessage(`${getPipeline().id}: removed from storage`, 'note');
    } catch (err) {
      showErrors(form, err);
    }
  }, { 'data-action': 'unstore' });
  const form = h('form', { class: 'grid', 'data-form': 'store', novalidate: true },
    field('Start when the service starts', checkbox('auto_start', false)),
    field('Description', input('description', { maxlength: 1024, placeholder: 'roof camera, north' })),
    h('p', { class: 'form-error', role: 'alert', hidden: true }),
    h('div', { class: 'form-actions' }, unstore, submit));

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const p = getPipeline();
    await submitting(form, async () => {
      const body = bodyOf(form);
      body.description ??= '';
      await api(p.persisted ? 'PATCH' : 'POST', `${pipelinePath(p.id)}/store`, body);
      showMessage(`${p.id}: ${p.persisted ? 'stored copy changed' : 'stored'}`, 'note');
    });
  });

  let filledFor = null;
  function update() {
    const p = getPipeline();
    note.textContent = p.persisted ? `Stored${p.auto_start ? ', starts with the service' : ''}${p.description ? `: ${p.description}` : ''}.` : 'Not stored: it is gone after a restart.';
    submit.textContent = p.persisted ? 'Save stored settings' : 'Store';
    unstore.hidden = !p.persisted;
    if (filledFor !== p.persisted) {
      fill(form, { auto_start: p.auto_start ?? false, description: p.description ?? '' });
      filledFor = p.persisted;
    }
  }
  return { el: h('div', { class: 'stack' }, note, form), update };
}
