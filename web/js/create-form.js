// The "new pipeline" form: a simple-mode pipeline from a source URI, an encoding and an output URI.
import { api } from './api.js';
import { $ } from './dom.js';
import { refreshFooter } from './footer.js';
import { clearMessage, showMessage } from './message.js';
import { refreshList } from './pipelines.js';

/** The request body the form describes (pure, given the form's values). */
export function bodyFrom(values) {
  const body = { id: values.id.trim(), mode: 'simple', source: { uri: values.source.trim() }, output: { uri: values.output.trim() } };
  if (values.codec !== 'none') {
    body.encoding = {
      codec: values.codec,
      bitrate: Number(values.bitrate),
      width: Number(values.width),
      height: Number(values.height),
      fps: Number(values.fps),
    };
  }
  return body;
}

export function setUpCreateForm() {
  const form = $('#create-form');
  const codec = form.elements.codec;
  // Passthrough keeps the source's own encoding: the encoding fields mean nothing then.
  codec.addEventListener('change', () => {
    for (const name of ['bitrate', 'width', 'height', 'fps']) form.elements[name].disabled = codec.value === 'none';
  });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const values = Object.fromEntries(['id', 'source', 'codec', 'bitrate', 'width', 'height', 'fps', 'output'].map((n) => [n, form.elements[n].value]));
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const created = await api('POST', '/pipeline', bodyFrom(values));
      clearMessage();
      showMessage(`${created.id}: created`, 'note');
      form.elements.id.value = '';
      await refreshList();
      refreshFooter();
    } catch (err) {
      showMessage(err.message);
    } finally {
      button.disabled = false;
    }
  });
}
