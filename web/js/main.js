// Boot and navigation: ask whether a password is set; show the login or the console. The console is one event
// stream (live-stream.js) and hash routes, each a view of its own module. A 401 at any time (token expired,
// password changed elsewhere) brings the login back.
import { api, token, whenUnauthorized } from './api.js';
import { devicesView, refreshAudioDevices } from './devices.js';
import { $, $$, h, show } from './dom.js';
import { gallery } from './framegrabs.js';
import { setUpFooter } from './footer.js';
import { startLiveStream, stopLiveStream } from './live-stream.js';
import { clearMessage, showMessage } from './message.js';
import { pipelineDetail } from './pipeline-detail.js';
import { pipelineForm } from './pipeline-form.js';
import { setUpPipelinesView } from './pipelines-view.js';
import { setDeviceName } from './settings-form.js';
import { storedView } from './stored-view.js';
import { systemView } from './system-view.js';
import { kickThumbnails } from './thumbnails.js';
import { webhooksView } from './webhooks.js';

let authEnabled = false;
let cleanup = () => {};

function showLogin() {
  stopLiveStream();
  token.clear();
  show($('#app-view'), false);
  show($('#logout'), false);
  show($('#login-view'), true);
  $('#login-password').focus();
}

const views = {
  pipelines: () => null,
  pipeline: (root, id) => pipelineDetail(root, id),
  new: (root) => {
    root.replaceChildren(h('section', { class: 'card' }, h('h1', {}, 'New pipeline'),
      pipelineForm({ onDone: (saved) => { if (saved) location.hash = `#/pipeline/${encodeURIComponent(saved.id)}`; } })));
    return () => {};
  },
  framegrabs: (root) => {
    const g = gallery();
    root.replaceChildren(h('section', { class: 'card' }, h('h1', {}, 'Framegrabs'), h('p', { class: 'muted' }, 'Start framegrabs on a pipeline’s page.'), g.el));
    g.refresh();
    return () => {};
  },
  stored: (root) => storedView(root),
  webhooks: (root) => webhooksView(root),
  devices: (root) => devicesView(root),
  system: (root) => systemView(root, { authEnabled, onAuthChanged }),
};

function route() {
  cleanup();
  cleanup = () => {};
  const [, name = 'pipelines', arg] = location.hash.match(/^#\/([a-z]+)(?:\/(.+))?$/) ?? [];
  const view = views[name] ? name : 'pipelines';
  for (const a of $$('nav a')) a.toggleAttribute('aria-current', a.dataset.view === (view === 'pipeline' ? 'pipelines' : view));
  const root = $('#view');
  show($('#pipelines-view'), view === 'pipelines');
  show(root, view !== 'pipelines');
  if (view !== 'pipelines') cleanup = views[view](root, arg ? decodeURIComponent(arg) : undefined) ?? (() => {});
  kickThumbnails();
}

function onAuthChanged(enabled) {
  authEnabled = enabled;
  show($('#logout'), authEnabled);
  if (!authEnabled) token.clear();
  // A new password ends other sessions, not this one; a removed one needs no token: reconnect either way.
  startLiveStream(onUnauthorized);
  route();
}

function onUnauthorized() {
  if (authEnabled) showLogin();
}

async function showApp() {
  show($('#login-view'), false);
  show($('#app-view'), true);
  show($('#logout'), authEnabled);
  startLiveStream(onUnauthorized);
  route();
  refreshAudioDevices();
  try {
    setDeviceName((await api('GET', '/settings')).device_name);
  } catch {
    /* the name is decoration */
  }
}

async function boot() {
  whenUnauthorized(onUnauthorized);
  window.addEventListener('hashchange', route);
  $('#login-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const field = $('#login-password');
    try {
      const session = await api('POST', '/auth/login', { password: field.value });
      token.set(session.token);
      field.value = '';
      clearMessage();
      await showApp();
    } catch (err) {
      showMessage(err.message);
      field.select();
    }
  });
  $('#logout').addEventListener('click', async () => {
    try {
      await api('POST', '/auth/logout');
    } catch {
      /* the token goes either way */
    }
    showLogin();
  });
  setUpPipelinesView();
  setUpFooter();
  try {
    authEnabled = (await api('GET', '/auth/status')).auth_enabled;
  } catch (err) {
    showMessage(`the service does not answer: ${err.message}`);
    return;
  }
  if (authEnabled && !token.get()) showLogin();
  else await showApp();
}

boot();
