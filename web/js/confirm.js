// Destructive actions ask once, in the page: the first press arms the button ("Confirm …"), a second press within
// a few seconds acts. Keyboard and screen readers see one button whose text says what the next press does.
import { h } from './dom.js';

const ARMED_MS = 4000;

export function dangerButton(text, confirmText, action, attrs = {}) {
  let timer;
  const button = h('button', { type: 'button', class: 'ghost danger-text', ...attrs }, text);
  const disarm = () => {
    clearTimeout(timer);
    delete button.dataset.armed;
    button.textContent = text;
    button.className = 'ghost danger-text';
  };
  button.addEventListener('click', async () => {
    if (!button.dataset.armed) {
      button.dataset.armed = 'true';
      button.textContent = confirmText;
      button.className = 'danger';
      timer = setTimeout(disarm, ARMED_MS);
      return;
    }
    disarm();
    button.disabled = true;
    try {
      await action();
    } finally {
      button.disabled = false;
    }
  });
  return button;
}
