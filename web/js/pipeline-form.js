// Create and edit a pipeline in any of the three modes (POST /api/pipeline; PUT /api/pipeline/{id} when stopped).
// Controls are named with the API's field paths, so the body is read off the form (form-errors.js bodyOf) and the
// API's messages land beside the fields they name.
import { api, pipelinePath } from './api.js';
import { checkbox, field, h, input, select } from './dom.js';
import { bodyOf, fill, submitting } from './form-errors.js';
import { showMessage } from './message.js';
import { state } from './state.js';

const MAX_INPUTS = 4;
const TEST_SOURCES = ['test://ball', 'test://smpte', 'test://snow'];
const WAVES = [['0', '0 sine'], ['1', '1 square'], ['2', '2 saw'], ['3', '3 triangle'], ['4', '4 silence'],
  ...Array.from({ length: 8 }, (_, i) => [String(i + 5), `${i + 5} (GStreamer wave ${i + 5})`])];
const CODEC2_MODES = ['3200', '2400', '1600', '1400', '1300', '1200'].map((m) => [m, `${m} bit/s`]);

const num = (name, attrs) => input(name, { type: 'number', inputmode: 'numeric', ...attrs });

/** The source URI suggestions: test patterns and the cameras the stream announced. */
function sourceList(id) {
  const list = h('datalist', { id });
  const refresh = () => list.replaceChildren(...[...TEST_SOURCES, ...[...state.cameras.keys()].map((p) => `file://${p}`)].map((v) => h('option', { value: v })));
  refresh();
  return { list, refresh };
}

function inputRow(index, sourcesId) {
  const p = `inputs[${index}]`;
  const remove = h('button', { type: 'button', class: 'ghost small', 'data-action': 'remove-input' }, 'Remove input');
  const row = h('fieldset', { class: 'input-row grid', 'data-input': index },
    h('legend', {}, `Input ${index + 1}`),
    field('Source URI', input(`${p}.source.uri`, { list: sourcesId, placeholder: 'test://smpte, rtsp://…', required: true }), null),
    field('Label', input(`${p}.label`, { maxlength: 256, placeholder: 'drawn top left' })),
    field('Rotate', select(`${p}.transform.rotate`, [['0', '0°'], ['90', '90° clockwise'], ['180', '180°'], ['270', '270°']], { 'data-type': 'number' })),
    field('Mirror', checkbox(`${p}.transform.mirror`, false, { 'data-omit-false': '' })),
    field('Grayscale', checkbox(`${p}.transform.grayscale`, false, { 'data-omit-false': '' })),
    ...['top', 'right', 'bottom', 'left'].map((edge) => field(`Crop ${edge} (px)`, num(`${p}.crop.${edge}`, { min: 0, max: 16384, placeholder: '0' }))),
    field('Overlay text', input(`${p}.overlay.text`, { maxlength: 256, placeholder: 'drawn bottom left' })),
    field('Overlay clock', checkbox(`${p}.overlay.timestamp`, false, { 'data-omit-false': '' }), 'the wall clock after the text'),
    h('div', { class: 'row-actions' }, remove));
  return row;
}

function renumber(container) {
  [...container.children].forEach((row, i) => {
    row.dataset.input = String(i);
    row.querySelector('legend').textContent = `Input ${i + 1}`;
    for (const el of row.querySelectorAll('[name]')) el.name = el.name.replace(/^inputs\[\d+\]/, `inputs[${i}]`);
  });
}

/** Builds the form. editing: the pipeline object to edit (PUT), or undefined to create. */
export function pipelineForm({ editing, onDone } = {}) {
  const sources = sourceList(`sources-${Math.random().toString(36).slice(2)}`);
  const modeSelect = select('mode', [['simple', 'simple: one source'], ['multiview', 'multiview: 1–4 inputs in one picture'], ['advanced', 'advanced: a GStreamer description']]);
  const idInput = input('id', { required: true, maxlength: 64, pattern: '[A-Za-z0-9_\\-]+', placeholder: 'cam1', autocomplete: 'off' });

  const simple = h('fieldset', { class: 'grid', 'data-mode': 'simple' }, h('legend', {}, 'Source'),
    field('Source URI', input('source.uri', { list: sources.list.id, required: true, value: 'test://ball', placeholder: 'test://ball, rtsp://…, udp://…, file:///dev/video0' }),
      'test://<pattern>, rtsp://, udp://host:port, file:///dev/videoN (camera), file:///path (looped)'),
    field('Source latency (ms)', num('source.latency_ms', { min: 0, placeholder: 'RTSP jitter buffer' })));

  const inputs = h('div', { class: 'inputs' });
  const addInput = h('button', { type: 'button', class: 'small', 'data-action': 'add-input' }, '+ Add input');
  const multiview = h('fieldset', { 'data-mode': 'multiview' }, h('legend', {}, 'Inputs (1–4; laid out automatically, encoded AV1 at quality 5)'), inputs, addInput);
  const syncAdd = () => { addInput.disabled = inputs.children.length >= MAX_INPUTS; };
  addInput.addEventListener('click', () => {
    inputs.append(inputRow(inputs.children.length, sources.list.id));
    syncAdd();
  });
  inputs.addEventListener('click', (ev) => {
    const button = ev.target.closest('[data-action=remove-input]');
    if (!button || inputs.children.length <= 1) return;
    button.closest('.input-row').remove();
    renumber(inputs);
    syncAdd();
  });
  inputs.append(inputRow(0, sources.list.id));

  const codec = select('encoding.codec', [['h264', 'H.264'], ['h265', 'H.265'], ['av1', 'AV1'], ['', 'none (passthrough)']]);
  const encodingFields = h('fieldset', { class: 'grid plain' },
    field('Bitrate (kbit/s)', num('encoding.bitrate', { min: 5, max: 5000, value: 1000 })),
    field('Width', num('encoding.width', { min: 1, max: 16384, value: 1280 })),
    field('Height', num('encoding.height', { min: 1, max: 16384, value: 720 })),
    field('FPS', num('encoding.fps', { min: 1, max: 120, value: 30 })));
  const quality = field('Quality (1 fastest – 10 best)', num('encoding.quality', { min: 1, max: 10, placeholder: '5' }));
  const codecField = field('Codec', codec);
  const encoding = h('fieldset', { class: 'grid', 'data-modes': 'simple multiview' }, h('legend', {}, 'Encoding'), codecField, encodingFields, quality);

  const output = h('fieldset', { class: 'grid', 'data-modes': 'simple multiview' }, h('legend', {}, 'Output'),
    field('Output URI', input('output.uri', { required: true, placeholder: 'rtsp://0.0.0.0:8554/cam1, udp://239.1.1.1:5000, /srv/rec/cam1.mkv' }),
      'local RTSP server, UDP (unicast or multicast), tcp://, or a .ts/.mkv/.mp4 file'),
    field('Network interface', input('output.network_interface', { placeholder: 'eth0 (multicast)' })),
    field('On demand', checkbox('on_demand', false, { 'data-omit-false': '' }), 'local RTSP only: runs while a client watches'));

  const audioOn = h('input', { type: 'checkbox', id: `audio-on-${sources.list.id}` });
  const audioSource = select('audio.source', [['test', 'test tone'], ['stream', 'from the source stream'], ['local', 'local ALSA device']]);
  const audioFields = h('fieldset', { class: 'grid plain', disabled: true },
    field('Audio source', audioSource),
    field('ALSA device', input('audio.device', { list: 'audio-devices', placeholder: 'plughw:1,0' }), 'required for a local source'),
    field('Test wave', select('audio.test_wave', WAVES, { 'data-type': 'number' })),
    field('Codec2 mode', select('audio.codec2_mode', CODEC2_MODES, { 'data-type': 'number' })),
    field('Volume (0.0–2.0)', num('audio.volume', { min: 0, max: 2, step: 0.1, placeholder: 'unchanged' })),
    field('Noise suppression level', select('audio.noise_suppression_level', [['1', '1 low'], ['2', '2 moderate'], ['3', '3 high'], ['4', '4 aggressive']], { 'data-type': 'number' })),
    field('200 Hz noise filter', checkbox('audio.noise_filter', true)),
    field('Noise suppression', checkbox('audio.noise_suppression', true)),
    field('Automatic gain control', checkbox('audio.auto_gain_control', true)));
  audioFields.querySelector('[name="audio.codec2_mode"]').value = '2400';
  audioFields.querySelector('[name="audio.noise_suppression_level"]').value = '2';
  const audio = h('fieldset', { 'data-mode': 'simple' }, h('legend', {}, 'Audio (Codec2)'),
    h('div', { class: 'field check' }, audioOn, h('label', { for: audioOn.id }, 'Send audio')), audioFields);
  audioOn.addEventListener('change', () => { audioFields.disabled = !audioOn.checked; });

  const advanced = h('fieldset', { 'data-mode': 'advanced' }, h('legend', {}, 'GStreamer description'),
    field('Pipeline', h('textarea', { name: 'raw_pipeline', rows: 4, spellcheck: 'false', placeholder: 'videotestsrc is-live=true ! video/x-raw,width=320,height=240 ! <svc:h264 bitrate=800 /> ! mpegtsmux ! udpsink host=127.0.0.1 port=5000' })),
    h('div', { class: 'help' },
      h('p', {}, 'Encoder macros stand where an element chain may, raw video (or audio) in, encoded stream out; several may be used:'),
      h('ul', {},
        h('li', {}, h('code', {}, '<svc:h264 />'), ', ', h('code', {}, '<svc:h265 />'), ', ', h('code', {}, '<svc:av1 />'), ' — optional ', h('code', {}, 'bitrate='), ' kbit/s, 5–5000, default 500'),
        h('li', {}, h('code', {}, '<svc:codec2 />'), ' — optional ', h('code', {}, 'mode='), ' 3200, 2400, 1600, 1400, 1300 or 1200 bit/s, default 2400'),
        h('li', {}, 'Vendor plugins add their own (e.g. ', h('code', {}, '<svc:vp8 bitrate=800 />'), '). The text is kept as written and expanded at each start; GStreamer checks it when you save.'))));

  const submit = h('button', { type: 'submit', class: 'primary' }, editing ? 'Save changes' : 'Create');
  const cancel = editing ? h('button', { type: 'button', class: 'ghost', onclick: () => onDone?.() }, 'Cancel') : null;
  const form = h('form', { class: 'pipeline-form stack', novalidate: true, 'data-form': editing ? 'edit' : 'create' },
    h('div', { class: 'grid' }, field('Mode', modeSelect), field('ID', idInput, 'letters, digits, _ and -; at most 64')),
    sources.list, simple, multiview, encoding, output, audio, advanced,
    h('p', { class: 'form-error', role: 'alert', hidden: true }),
    h('div', { class: 'form-actions' }, cancel, submit));

  const sync = () => {
    const mode = modeSelect.value;
    for (const fs of form.querySelectorAll('fieldset[data-mode], fieldset[data-modes]')) {
      const on = (fs.dataset.mode ?? fs.dataset.modes).split(' ').includes(mode);
      fs.hidden = !on;
      fs.disabled = !on;
    }
    // Multiview always encodes AV1 at quality 5: those two are not the operator's to choose there.
    codecField.hidden = mode !== 'simple';
    codec.disabled = mode !== 'simple';
    quality.hidden = mode !== 'simple';
    quality.querySelector('input').disabled = mode !== 'simple';
    encodingFields.disabled = mode === 'simple' && codec.value === '';
    sources.refresh();
  };
  modeSelect.addEventListener('change', sync);
  codec.addEventListener('change', sync);

  if (editing) {
    modeSelect.value = editing.mode;
    while (inputs.children.length < (editing.inputs?.length ?? 1)) inputs.append(inputRow(inputs.children.length, sources.list.id));
    syncAdd();
    fill(form, editing);
    if (editing.mode === 'simple' && !editing.encoding) codec.value = '';
    audioOn.checked = Boolean(editing.audio);
    audioFields.disabled = !audioOn.checked;
    idInput.readOnly = true;
  }
  sync();

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await submitting(form, async () => {
      const body = bodyOf(form);
      const saved = editing
        ? await api('PUT', pipelinePath(editing.id), body)
        : await api('POST', '/pipeline', body);
      showMessage(`${saved.id}: ${editing ? 'saved' : 'created'}`, 'note');
      onDone?.(saved);
    });
  });
  return form;
}
