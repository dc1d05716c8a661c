// The appliance itself: settings, password, API keys, the licence in force and the version.
import { api } from './api.js';
import { apiKeysPanel } from './api-keys.js';
import { h } from './dom.js';
import { passwordForm } from './password-form.js';
import { settingsForm } from './settings-form.js';

function definitions(pairs) {
  return h('dl', { class: 'facts' }, pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '–')]));
}

async function licenceFacts(box) {
  try {
    const l = await api('GET', '/licence');
    box.replaceChildren(definitions([
      ['Status', l.status + (l.reason ? ` — ${l.reason}` : '')],
      ['Licensee', l.licensee ?? (l.status === 'unrestricted' ? 'no licence: everything allowed' : null)],
      ['Codecs', l.codecs ? l.codecs.join(', ') || 'none' : 'all'],
      ['Streams', l.max_streams ?? 'unlimited'],
      ['Expires', l.expires_at ? new Date(l.expires_at).toLocaleString() : 'never'],
    ]));
    box.dataset.status = l.status;
  } catch (err) {
    box.textContent = err.message;
  }
}

async function versionFacts(box) {
  try {
    const v = await api('GET', '/version');
    box.replaceChildren(definitions([['encoderd', v.version], ['API', v.api_version], ['GStreamer', v.gstreamer], ['Node', v.node]]),
      h('table', { class: 'list' }, h('thead', {}, h('tr', {}, h('th', {}, 'Plugin'), h('th', {}, 'Kind'), h('th', {}, 'Version'), h('th', {}, 'Origin'))),
        h('tbody', {}, (v.plugins ?? []).map((p) => h('tr', {}, h('td', {}, p.name), h('td', {}, p.kind), h('td', {}, p.version), h('td', {}, p.origin))))));
  } catch (err) {
    box.textContent = err.message;
  }
}

export function systemView(root, { authEnabled, onAuthChanged }) {
  const licence = h('div', { 'data-licence': '' }, 'loading…');
  const version = h('div', { 'data-version': '' }, 'loading…');
  root.replaceChildren(
    h('section', { class: 'card', 'data-section': 'settings' }, h('h1', {}, 'Settings'), settingsForm()),
    h('section', { class: 'card', 'data-section': 'password' }, h('h2', {}, 'Password'), passwordForm({ authEnabled, onAuthChanged })),
    h('section', { class: 'card', 'data-section': 'api-keys' }, h('h2', {}, 'API keys'), h('p', { class: 'muted' }, 'For machines (a Prometheus scraper, scripts): sent as a bearer token like a session, never expiring, revoked one by one.'), apiKeysPanel()),
    h('section', { class: 'card', 'data-section': 'licence' }, h('h2', {}, 'Licence'), licence),
    h('section', { class: 'card', 'data-section': 'version' }, h('h2', {}, 'Version'), version));
  licenceFacts(licence);
  versionFacts(version);
  return () => {};
}
