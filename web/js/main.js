// Boot: ask whether a password is set; show the login or the pipelines. A 401 at any time (token expired,
// password set elsewhere) brings the login back.
import { api, token, whenUnauthorized } from './api.js';
import { setUpCreateForm } from './create-form.js';
import { $, show } from './dom.js';
import { refreshFooter } from './footer.js';
import { clearMessage, showMessage } from './message.js';
import { startPolling, stopPolling } from './pipelines.js';

let authEnabled = false;

function showLogin() {
  stopPolling();
  token.clear();
  show($('#app-view'), false);
  show($('#logout'), false);
  show($('#login-view'), true);
  $('#login-password').focus();
}

async function showApp() {
  show($('#login-view'), false);
  show($('#app-view'), true);
  show($('#logout'), authEnabled);
  startPolling();
  try {
    const settings = await api('GET', '/settings');
    $('#device-name').textContent = settings.device_name;
    document.title = `${settings.device_name} · encoderd`;
  } catch {
    /* the name is decoration */
  }
}

async function boot() {
  whenUnauthorized(() => {
    if (authEnabled) showLogin();
  });
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
  setUpCreateForm();
  refreshFooter();
  setInterval(() => { if (!document.hidden) refreshFooter(); }, 10000);
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
