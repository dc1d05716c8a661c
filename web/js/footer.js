// The footer: pipelines playing and their health, from the event stream (nothing polled), and the version (public,
// read once).
import { api } from './api.js';
import { $ } from './dom.js';
import { on, state } from './state.js';

let version = '';

function render() {
  const list = [...state.pipelines.values()];
  const playing = list.filter((p) => p.state === 'playing').length;
  const bad = list.filter((p) => p.health === 'failing').length;
  const degraded = list.filter((p) => p.health === 'degraded').length;
  const health = bad ? `● ${bad} failing` : degraded ? `● ${degraded} degraded` : '● healthy';
  const el = $('#footer');
  el.textContent = state.connection.state === 'open'
    ? `${health} · ${playing}/${list.length} playing${version}`
    : `● not connected${version}`;
  el.classList.toggle('bad', bad > 0 || state.connection.state !== 'open');
}

export async function setUpFooter() {
  on('pipelines', render);
  on('pipeline', render);
  on('connection', render);
  render();
  try {
    const v = await api('GET', '/version');
    version = ` · encoderd ${v.version} · ${v.gstreamer}`;
  } catch {
    version = '';
  }
  render();
}
