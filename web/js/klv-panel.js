// KLV of a pipeline whose source carries it (docs/klv.md): start and stop the extraction, and the last decoded
// values. The values come as `klv` events on the pipeline's own stream, opened only while extraction runs and this
// panel is on screen (the console's one stream does not carry them).
import { api, authHeaders, pipelinePath } from './api.js';
import { h } from './dom.js';
import { showMessage } from './message.js';
import { openStream } from './sse.js';

const FIELDS = [['latitude', 'Latitude'], ['longitude', 'Longitude'], ['altitude', 'Altitude (m)'], ['heading', 'Heading (°)'],
  ['timestamp', 'Time stamp'], ['version', 'ST 0601 version'], ['checksum_ok', 'Checksum']];

export function klvPanel(getPipeline) {
  let stream;
  const note = h('p', { class: 'muted', 'data-klv-state': '' });
  const start = h('button', { type: 'button', 'data-action': 'klv-start' }, 'Start KLV');
  const stop = h('button', { type: 'button', 'data-action': 'klv-stop' }, 'Stop KLV');
  const values = h('dl', { class: 'klv-values', 'aria-live': 'polite' });
  const el = h('div', { class: 'stack' }, note, h('div', { class: 'row' }, start, stop), values);

  const act = (what) => async () => {
    try {
      await api('PUT', `${pipelinePath(getPipeline().id)}/klv/${what}`);
      showMessage(`${getPipeline().id}: KLV ${what === 'start' ? 'started' : 'stopped'}`, 'note');
    } catch (err) {
      showMessage(err.message);
    }
  };
  start.addEventListener('click', act('start'));
  stop.addEventListener('click', act('stop'));

  function showValues(data) {
    values.replaceChildren(...FIELDS.filter(([k]) => data[k] !== undefined).flatMap(([k, label]) => [
      h('dt', {}, label), h('dd', { 'data-klv': k }, k === 'checksum_ok' ? (data[k] ? 'valid' : 'invalid') : String(data[k]))]));
  }

  function update() {
    const k = getPipeline().klv ?? { available: false };
    const running = k.available && k.state === 'running';
    note.textContent = !k.available ? 'No KLV has come from the source (KLV is read from UDP MPEG-TS sources that are decoded).'
      : running ? 'Extracting: the last decoded values below.' : 'The source carries KLV; extraction is stopped.';
    start.hidden = !k.available || running;
    stop.hidden = !running;
    if (running && !stream && el.isConnected) {
      stream = openStream(`/api${pipelinePath(getPipeline().id)}/status/events`, {
        headers: () => authHeaders({ accept: 'text/event-stream' }),
        onEvent: (name, data) => { if (name === 'klv') showValues(data); },
        onState: () => {},
      });
    } else if (!running && stream) close();
  }

  function close() {
    stream?.close();
    stream = undefined;
  }

  return { el, update, destroy: close };
}
