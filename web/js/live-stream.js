// The console's one live connection: GET /api/events?stats=true (docs/api.md, "Event stream"). Every pipeline's
// status arrives on connect and on each change, so nothing polls the pipeline list. After a reconnect, whatever was
// not announced again within RESYNC_MS is gone (deleted while the stream was down).
import { authHeaders } from './api.js';
import { $, h } from './dom.js';
import { openStream } from './sse.js';
import { emit, pushSample, state } from './state.js';

const RESYNC_MS = 2000;
let stream;
let resync = null;
let countdown;

function applyEvent(name, data) {
  switch (name) {
    case 'pipeline_status': {
      resync?.pipelines.add(data.id);
      state.pipelines.set(data.id, data);
      if (data.state !== 'playing') state.stats.delete(data.id);
      emit('pipeline', data);
      emit('pipelines');
      break;
    }
    case 'pipeline_stats': {
      const id = data.pipeline_id;
      state.stats.set(id, data);
      const sample = { t: Date.now(), bitrate: data.output?.bitrate_kbps ?? null, fps: data.output?.fps ?? null };
      state.history.set(id, pushSample(state.history.get(id) ?? [], sample));
      emit('stats', id);
      break;
    }
    case 'pipeline_error':
      state.errors.set(data.pipeline_id, { message: data.message, at: Date.now() });
      emit('pipeline', state.pipelines.get(data.pipeline_id));
      break;
    case 'pipeline_not_found':
      forget(data.pipeline_id);
      emit('pipelines');
      break;
    case 'camera_added':
      resync?.cameras.add(data.device_path);
      state.cameras.set(data.device_path, data);
      emit('cameras');
      break;
    case 'camera_removed':
      state.cameras.delete(data.device_path);
      emit('cameras');
      break;
    default:
  }
}

function forget(id) {
  state.pipelines.delete(id);
  state.stats.delete(id);
  state.history.delete(id);
  state.errors.delete(id);
  emit('removed', id);
}

function startResync() {
  const seen = { pipelines: new Set(), cameras: new Set() };
  resync = seen;
  setTimeout(() => {
    if (resync !== seen) return;
    resync = null;
    for (const id of [...state.pipelines.keys()]) if (!seen.pipelines.has(id)) forget(id);
    for (const path of [...state.cameras.keys()]) if (!seen.cameras.has(path)) state.cameras.delete(path);
    emit('pipelines');
    emit('cameras');
  }, RESYNC_MS);
}

function renderConnection(s) {
  const el = $('#live');
  clearInterval(countdown);
  el.dataset.state = s.state;
  if (s.state === 'open') el.replaceChildren(h('span', { class: 'dot' }), 'live');
  else if (s.state === 'connecting') el.replaceChildren(h('span', { class: 'dot' }), 'connecting…');
  else if (s.state === 'reconnecting') {
    const tick = () => {
      const left = Math.max(0, Math.ceil((s.at - Date.now()) / 1000));
      el.replaceChildren(h('span', { class: 'dot' }), `reconnecting in ${left} s`);
      el.title = s.reason ?? '';
    };
    tick();
    countdown = setInterval(tick, 1000);
  } else el.replaceChildren(h('span', { class: 'dot' }), 'offline');
}

export function startLiveStream(onUnauthorized) {
  stopLiveStream();
  stream = openStream('/api/events?stats=true', {
    headers: () => authHeaders({ accept: 'text/event-stream' }),
    onEvent: applyEvent,
    onState: (s) => {
      state.connection = s;
      if (s.state === 'open') startResync();
      if (s.state === 'unauthorized') onUnauthorized();
      renderConnection(s);
      emit('connection', s);
    },
  });
}

export function stopLiveStream() {
  stream?.close();
  stream = undefined;
}
