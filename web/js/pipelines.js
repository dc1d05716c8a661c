// The pipeline list. Live state comes from polling GET /api/pipeline every 2 s (one request for all
// pipelines), not from the per-pipeline SSE streams: EventSource cannot send the Authorization header, a token
// in the URL would end up in logs, and one stream per pipeline would exhaust the browser's six HTTP/1.1
// connections per origin. After every action the list is fetched at once (docs/web.md).
import { api } from './api.js';
import { $, h, show } from './dom.js';
import { refreshFooter } from './footer.js';
import { clearMessage, showMessage } from './message.js';

const POLL_MS = 2000;
const busy = new Set();
let confirmDelete = null;
let confirmTimer;
let pollTimer;
let last = [];

function encodingText(p) {
  const e = p.encoding;
  if (!e) return p.mode === 'advanced' ? 'advanced' : 'passthrough';
  const parts = [e.codec ?? (p.mode === 'multiview' ? 'av1' : '?')];
  if (e.width && e.height) parts.push(`${e.width}×${e.height}`);
  if (e.fps) parts.push(`${e.fps} fps`);
  if (e.bitrate) parts.push(`${e.bitrate} kbps`);
  return parts.join(' · ');
}

function sourceText(p) {
  if (p.source) return p.source.uri;
  if (p.inputs) return p.inputs.map((i) => i.uri ?? i.source?.uri ?? '?').join(', ');
  return p.mode === 'advanced' ? 'raw pipeline' : '';
}

async function act(id, what, call) {
  busy.add(id);
  render(last);
  try {
    await call();
    clearMessage();
    showMessage(`${id}: ${what}`, 'note');
  } catch (err) {
    showMessage(`${id}: ${err.message}`);
  } finally {
    busy.delete(id);
    await refreshList();
    refreshFooter();
  }
}

function actions(p) {
  const id = p.id;
  const path = `/pipeline/${encodeURIComponent(id)}`;
  const disabled = busy.has(id);
  const play = h('button', { class: 'small', disabled: disabled || p.state === 'playing', 'data-action': 'play', onclick: () => act(id, 'playing', () => api('PUT', `${path}/play`)) }, '▶ Play');
  const stop = h('button', { class: 'small', disabled: disabled || p.state !== 'playing', 'data-action': 'stop', onclick: () => act(id, 'stopped', () => api('PUT', `${path}/stop`)) }, '■ Stop');
  const confirming = confirmDelete === id;
  const del = h('button', {
    class: confirming ? 'small danger' : 'small ghost',
    disabled,
    'data-action': 'delete',
    onclick: () => {
      // Two clicks: the first arms the button for three seconds.
      if (!confirming) {
        confirmDelete = id;
        clearTimeout(confirmTimer);
        confirmTimer = setTimeout(() => { confirmDelete = null; render(last); }, 3000);
        render(last);
        return;
      }
      confirmDelete = null;
      act(id, 'deleted', () => api('DELETE', path));
    },
  }, confirming ? 'Really delete?' : 'Delete');
  return h('td', { class: 'actions' }, play, stop, del);
}

function row(p) {
  const state = h('span', { class: `state ${p.state}` }, p.state);
  const error = p.last_error ? h('div', { class: 'row-error', title: p.last_error }, p.last_error) : null;
  return h('tr', { 'data-id': p.id, 'data-state': p.state },
    h('td', { class: 'id' }, p.id, p.persisted ? h('span', { class: 'tag', title: 'stored: survives a restart' }, 'stored') : null),
    h('td', {}, state, p.started_by && p.state === 'playing' ? h('div', { class: 'muted small-text' }, `by ${p.started_by}`) : null),
    h('td', { class: 'uri' }, sourceText(p)),
    h('td', {}, encodingText(p)),
    h('td', { class: 'uri' }, p.output?.uri ?? '', error),
    actions(p));
}

export function render(list) {
  last = list;
  $('#pipelines tbody').replaceChildren(...list.map(row));
  show($('#pipelines'), list.length > 0);
  show($('#empty'), list.length === 0);
}

export async function refreshList() {
  try {
    const list = await api('GET', '/pipeline');
    render([...list].sort((a, b) => a.id.localeCompare(b.id)));
    $('#list-status').textContent = `updated ${new Date().toLocaleTimeString()}`;
  } catch (err) {
    $('#list-status').textContent = `not updated: ${err.message}`;
  }
}

export function startPolling() {
  stopPolling();
  refreshList();
  pollTimer = setInterval(() => { if (!document.hidden) refreshList(); }, POLL_MS);
}

export function stopPolling() {
  clearInterval(pollTimer);
}
