// Settings (GET, PUT /api/settings; PUT merges, docs/settings.md): only the fields that changed are sent.
import { api } from './api.js';
import { checkbox, field, h, input, select, $ } from './dom.js';
import { bodyOf, fill, submitting } from './form-errors.js';
import { showMessage } from './message.js';

export function settingsForm() {
  let current = {};
  const form = h('form', { class: 'grid', 'data-form': 'settings', novalidate: true },
    field('Device name', input('device_name', { maxlength: 64, required: true })),
    field('Framegrabs kept per pipeline', input('framegrab_retention', { type: 'number', min: 1, max: 10000 })),
    field('RTSP source latency (ms)', input('rtsp_latency_ms', { type: 'number', min: 0, max: 10000 }), 'for RTSP sources that set none; from their next start'),
    field('Log level', select('log_level', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => [l]))),
    field('API explorer', checkbox('explorer_enabled', false), 'also needs --explorer-port'),
    h('p', { class: 'form-error', role: 'alert', hidden: true }),
    h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save settings')));
  const load = async () => {
    try {
      current = await api('GET', '/settings');
      fill(form, current);
      setDeviceName(current.device_name);
    } catch (err) {
      showMessage(err.message);
    }
  };
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await submitting(form, async () => {
      const wanted = bodyOf(form);
      const changed = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => current[k] !== v));
      if (!Object.keys(changed).length) throw new Error('nothing changed');
      current = await api('PUT', '/settings', changed);
      fill(form, current);
      setDeviceName(current.device_name);
      showMessage('settings saved', 'note');
    });
  });
  load();
  return form;
}

export function setDeviceName(name) {
  $('#device-name').textContent = name;
  document.title = `${name} · encoderd`;
}
