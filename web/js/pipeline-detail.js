// One pipeline's page (#/pipeline/<id>): its card, then a short form per feature. Built when the page opens and
// updated in place from the stream, so what the operator is typing survives every status event.
import { api, pipelinePath } from './api.js';
import { dangerButton } from './confirm.js';
import { checkbox, field, h, input } from './dom.js';
import { bodyOf, submitting } from './form-errors.js';
import { gallery } from './framegrabs.js';
import { klvPanel } from './klv-panel.js';
import { encodingPatchForm, geolocationForm } from './live-patch.js';
import { showMessage } from './message.js';
import { pipelineCard } from './pipeline-card.js';
import { pipelineForm } from './pipeline-form.js';
import { on, state } from './state.js';
import { storagePanel } from './storage-panel.js';

const section = (title, ...children) => h('section', { class: 'card', 'data-section': title.toLowerCase().replace(/\W+/g, '-') }, h('h2', {}, title), ...children);

function framegrabSection(getPipeline, files) {
  const stateText = h('p', { class: 'muted', 'data-framegrab-state': '' });
  const stop = h('button', { type: 'button', 'data-action': 'framegrab-stop' }, 'Stop framegrabs');
  const form = h('form', { class: 'grid', 'data-form': 'framegrab', novalidate: true },
    field('Every (s)', input('interval_seconds', { type: 'number', min: 1, max: 86400, placeholder: '5' })),
    field('JPEG quality', input('quality', { type: 'number', min: 1, max: 100, placeholder: '85' })),
    h('p', { class: 'form-error', role: 'alert', hidden: true }),
    h('div', { class: 'form-actions' }, stop, h('button', { type: 'submit', class: 'primary' }, 'Start framegrabs')));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await submitting(form, () => api('PUT', `${pipelinePath(getPipeline().id)}/framegrab/start`, bodyOf(form)));
  });
  stop.addEventListener('click', async () => {
    try {
      await api('PUT', `${pipelinePath(getPipeline().id)}/framegrab/stop`);
      files.refresh();
    } catch (err) {
      showMessage(err.message);
    }
  });
  return {
    el: h('div', { class: 'stack' }, stateText, form, h('h3', {}, 'Files'), files.el),
    update() {
      const fg = getPipeline().framegrab;
      const running = fg?.state === 'running';
      stateText.textContent = running ? `Running: a picture every ${fg.interval_seconds} s at quality ${fg.quality}${getPipeline().state === 'playing' ? '' : ' (from the next play)'}.` : 'Stopped.';
      stop.hidden = !running;
    },
  };
}

function editSection(getPipeline) {
  const holder = h('div');
  const note = h('p', { class: 'muted' });
  const open = h('button', { type: 'button', 'data-action': 'edit' }, 'Edit definition');
  open.addEventListener('click', () => {
    holder.replaceChildren(pipelineForm({ editing: getPipeline(), onDone: () => { holder.replaceChildren(); open.hidden = false; } }));
    open.hidden = true;
    holder.querySelector('select, input')?.focus();
  });
  return {
    el: h('div', { class: 'stack' }, note, open, holder),
    update() {
      const playing = getPipeline().state === 'playing';
      note.textContent = playing ? 'Stop the pipeline to change its definition (PUT replaces the whole of it).' : 'Replaces the whole definition; the stored copy is changed in Storage.';
      open.disabled = playing;
      for (const b of holder.querySelectorAll('button[type=submit]')) b.disabled = playing;
    },
  };
}

function deleteSection(getPipeline) {
  const alsoStored = checkbox('delete_persisted', false);
  const del = dangerButton('Delete pipeline', 'Confirm: delete pipeline', async () => {
    const id = getPipeline().id;
    try {
      await api('DELETE', `${pipelinePath(id)}${alsoStored.checked ? '?delete_persisted=true' : ''}`);
      showMessage(`${id}: deleted`, 'note');
      location.hash = '#/pipelines';
    } catch (err) {
      showMessage(`${id}: ${err.message}`);
    }
  }, { 'data-action': 'delete' });
  return h('div', { class: 'row' }, field('Also delete the stored copy', alsoStored), del);
}

/** Renders the page of pipeline id into root; returns a cleanup. */
export function pipelineDetail(root, id) {
  const getPipeline = () => state.pipelines.get(id);
  const p = getPipeline();
  if (!p) {
    root.replaceChildren(h('section', { class: 'card' }, h('h1', {}, id), h('p', {}, state.connection.state === 'open' ? 'No such pipeline.' : 'Waiting for the event stream…'), h('a', { href: '#/pipelines' }, 'All pipelines')));
    const off = on('pipelines', () => { if (getPipeline()) { off(); pipelineDetail(root, id); } });
    return off;
  }
  const card = pipelineCard(p, { detail: true });
  const files = gallery({ pipelineId: id });
  const framegrabs = framegrabSection(getPipeline, files);
  const klv = klvPanel(getPipeline);
  const storage = storagePanel(getPipeline);
  const edit = editSection(getPipeline);
  const patchable = p.mode !== 'advanced' && p.encoding;
  root.replaceChildren(
    h('p', { class: 'crumbs' }, h('a', { href: '#/pipelines' }, '← All pipelines')),
    card.el,
    h('div', { class: 'detail-grid' },
      patchable ? section('Encoding, live', encodingPatchForm(getPipeline)) : section('Encoding, live', h('p', { class: 'muted' }, p.mode === 'advanced' ? 'An advanced pipeline’s encoders are in its description: edit it while stopped.' : 'A passthrough pipeline does not encode.')),
      section('Geolocation', h('p', { class: 'muted' }, 'Carried as MISB ST 0601 KLV by outputs that can (UDP/TCP MPEG-TS, .ts files); applied at once.'), geolocationForm(getPipeline)),
      section('Framegrabs', framegrabs.el),
      section('KLV', klv.el),
      section('Storage', storage.el),
      section('Definition', edit.el),
      section('Delete', deleteSection(getPipeline))));
  const update = () => {
    const q = getPipeline();
    if (!q) return;
    card.update(q);
    framegrabs.update();
    klv.update();
    storage.update();
    edit.update();
  };
  update();
  files.refresh();
  const offs = [
    on('pipeline', (q) => { if (q?.id === id) update(); }),
    on('stats', (sid) => { if (sid === id) card.updateStats(); }),
    on('removed', (rid) => { if (rid === id) root.replaceChildren(h('section', { class: 'card' }, h('p', {}, `${id} was deleted.`), h('a', { href: '#/pipelines' }, 'All pipelines'))); }),
  ];
  return () => {
    for (const off of offs) off();
    card.destroy();
    klv.destroy();
  };
}
