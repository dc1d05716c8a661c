import { api } from './api.js';
import { $ } from './dom.js';

function uptime(s) {
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min`;
  if (s < 172800) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

let version;

/** Health and version: public endpoints, shown with or without a login. */
export async function refreshFooter() {
  const el = $('#footer');
  try {
    version ??= await api('GET', '/version');
    const health = await api('GET', '/health');
    el.textContent = `${health.status === 'ok' ? '● healthy' : `● ${health.status}`} · up ${uptime(health.uptime_s)} · `
      + `${health.engine.playing}/${health.engine.pipelines} playing · encoderd ${version.version} · ${version.gstreamer}`;
    el.classList.toggle('bad', health.status !== 'ok');
  } catch {
    el.textContent = '● the service does not answer';
    el.classList.add('bad');
  }
}
