// Live changes of a pipeline (PATCH /api/pipeline/{id}): bitrate, size and fps (a bitrate change is applied to the
// running encoder; size and fps rebuild the pipeline), and the geolocation carried in its KLV (lat/lon or MGRS,
// altitude, heading; Remove sends null).
import { api, pipelinePath } from './api.js';
import { dangerButton } from './confirm.js';
import { field, h, input, select } from './dom.js';
import { bodyOf, clearErrors, fill, showErrors, submitting } from './form-errors.js';
import { showMessage } from './message.js';

const num = (name, attrs) => input(name, { type: 'number', ...attrs });

export function encodingPatchForm(getPipeline) {
  const form = h('form', { class: 'grid', 'data-form': 'patch', novalidate: true },
    field('Bitrate (kbit/s)', num('encoding.bitrate', { min: 5, max: 5000 }), 'applied without interruption'),
    field('Width', num('encoding.width', { min: 1 })),
    field('Height', num('encoding.height', { min: 1 })),
    field('FPS', num('encoding.fps', { min: 1, max: 120 }), 'size and fps restart the pipeline briefly'),
    h('p', { class: 'form-error', role: 'alert', hidden: true }),
    h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'primary' }, 'Apply')));
  fill(form, getPipeline());
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const p = getPipeline();
    const wanted = bodyOf(form).encoding ?? {};
    // Only what changed: an unchanged size must not rebuild a playing pipeline.
    const encoding = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => p.encoding?.[k] !== v));
    await submitting(form, async () => {
      if (!Object.keys(encoding).length) throw new Error('nothing changed');
      await api('PATCH', pipelinePath(p.id), { encoding });
      showMessage(`${p.id}: encoding changed`, 'note');
    });
  });
  return form;
}

export function geolocationForm(getPipeline) {
  const kind = select('kind', [['latlon', 'latitude and longitude'], ['mgrs', 'MGRS']]);
  kind.removeAttribute('name');
  const latlon = h('div', { class: 'grid plain' },
    field('Latitude', num('geolocation.latitude', { step: 'any', min: -90, max: 90 })),
    field('Longitude', num('geolocation.longitude', { step: 'any', min: -180, max: 180 })));
  const mgrs = h('div', { class: 'grid plain' }, field('MGRS', input('geolocation.mgrs', { placeholder: '33UXP0500444998', autocomplete: 'off' })));
  const form = h('form', { class: 'stack', 'data-form': 'geolocation', novalidate: true },
    h('div', { class: 'grid' }, field('Position as', kind)), latlon, mgrs,
    h('div', { class: 'grid' },
      field('Altitude (m)', num('geolocation.altitude', { step: 'any' })),
      field('Heading (°)', num('geolocation.heading', { step: 'any', min: 0, max: 360 }))),
    h('p', { class: 'form-error', role: 'alert', hidden: true }),
    h('div', { class: 'form-actions' },
      dangerButton('Remove geolocation', 'Confirm: remove geolocation', async () => {
        clearErrors(form);
        try {
          await api('PATCH', pipelinePath(getPipeline().id), { geolocation: null });
          showMessage(`${getPipeline().id}: geolocation removed`, 'note');
        } catch (err) {
          showErrors(form, err);
        }
      }, { 'data-action': 'remove-geolocation' }),
      h('button', { type: 'submit', class: 'primary' }, 'Set geolocation')));
  const sync = () => {
    for (const [box, on] of [[latlon, kind.value === 'latlon'], [mgrs, kind.value === 'mgrs']]) {
      box.hidden = !on;
      for (const el of box.querySelectorAll('input')) el.disabled = !on;
    }
  };
  kind.addEventListener('change', sync);
  const g = getPipeline().geolocation;
  if (g) {
    fill(form, { geolocation: g });
    kind.value = g.mgrs ? 'mgrs' : 'latlon';
  }
  sync();
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await submitting(form, async () => {
      const body = { geolocation: bodyOf(form).geolocation ?? {} };
      await api('PATCH', pipelinePath(getPipeline().id), body);
      showMessage(`${getPipeline().id}: geolocation set`, 'note');
    });
  });
  return form;
}
