// The API's validation messages beside the fields they name. Each message of `details.errors` starts with the
// field's path (`encoding.bitrate must be between 5 and 5000`, `inputs[1].source.uri …`); the controls are named
// with the same paths, so a message goes to the control whose name it starts with. What names no control goes to
// the form's own error line.
import { ApiFailure } from './api.js';
import { h } from './dom.js';

/** Pure: the control name a message belongs to, among names; null when none. */
export function fieldOf(message, names) {
  const head = String(message).split(/[\s:]/)[0];
  if (names.includes(head)) return head;
  const parents = names.filter((n) => head.startsWith(`${n}.`) || head.startsWith(`${n}[`));
  if (parents.length) return parents.sort((a, b) => b.length - a.length)[0];
  const children = names.filter((n) => n.startsWith(`${head}.`) || n.startsWith(`${head}[`));
  return children[0] ?? null;
}

export function clearErrors(form) {
  for (const el of form.querySelectorAll('.field-error')) el.remove();
  for (const el of form.querySelectorAll('[aria-invalid]')) {
    el.removeAttribute('aria-invalid');
    const hint = el.id ? `${el.id}-hint` : null;
    if (hint && document.getElementById(hint)) el.setAttribute('aria-describedby', hint);
    else el.removeAttribute('aria-describedby');
  }
  const line = form.querySelector('.form-error');
  if (line) {
    line.textContent = '';
    line.hidden = true;
  }
}

/** Shows a failure on the form: field messages beside their fields, the rest on the form's error line. */
export function showErrors(form, err) {
  clearErrors(form);
  const messages = err instanceof ApiFailure ? err.messages : [err?.message ?? String(err)];
  const controls = [...form.elements].filter((el) => el.name && !el.disabled && !el.closest('[hidden]'));
  const names = controls.map((el) => el.name);
  const rest = [];
  let first;
  for (const message of messages) {
    const name = fieldOf(message, names);
    const control = name && controls.find((el) => el.name === name);
    if (!control) {
      rest.push(message);
      continue;
    }
    const note = h('small', { class: 'field-error', id: `${control.id}-error`, role: 'alert' }, message);
    control.closest('.field')?.append(note);
    control.setAttribute('aria-invalid', 'true');
    control.setAttribute('aria-describedby', [control.getAttribute('aria-describedby'), note.id].filter(Boolean).join(' '));
    first ??= control;
  }
  let line = form.querySelector('.form-error');
  if (!line) {
    line = h('p', { class: 'form-error', role: 'alert' });
    form.append(line);
  }
  line.textContent = rest.join('\n');
  line.hidden = rest.length === 0;
  first?.focus();
}

/** Runs a form's submit: disables its submit button, clears old errors, shows new ones; true when it succeeded. */
export async function submitting(form, fn) {
  const button = form.querySelector('button[type=submit]');
  if (button) button.disabled = true;
  clearErrors(form);
  try {
    await fn();
    return true;
  } catch (err) {
    showErrors(form, err);
    return false;
  } finally {
    if (button) button.disabled = false;
  }
}

/** Pure: a form's values as an API body. Controls name a path (`encoding.bitrate`, `inputs[0].crop.top`);
 * disabled ones and those inside a disabled fieldset are left out, empty ones too; numbers (type=number or
 * data-type=number) are sent as numbers, checkboxes as booleans (data-omit-false: only when checked). */
export function bodyOf(form) {
  const body = {};
  for (const el of form.elements) {
    if (!el.name || el.disabled || el.matches('fieldset:disabled *')) continue;
    let value;
    if (el.type === 'checkbox') {
      if (!el.checked && el.dataset.omitFalse !== undefined) continue;
      value = el.checked;
    } else {
      const text = el.value.trim();
      if (text === '') continue;
      value = el.type === 'number' || el.dataset.type === 'number' ? Number(text) : el.value;
    }
    setPath(body, el.name, value);
  }
  return body;
}

export function setPath(obj, path, value) {
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let at = obj;
  keys.forEach((key, i) => {
    if (i === keys.length - 1) {
      at[key] = value;
      return;
    }
    at[key] ??= /^\d+$/.test(keys[i + 1]) ? [] : {};
    at = at[key];
  });
  return obj;
}

export function getPath(obj, path) {
  return path.replace(/\[(\d+)\]/g, '.$1').split('.').reduce((at, key) => (at == null ? undefined : at[key]), obj);
}

/** Fills a form's controls from an object by their paths (edit forms). */
export function fill(form, obj) {
  for (const el of form.elements) {
    if (!el.name) continue;
    const value = getPath(obj, el.name);
    if (el.type === 'checkbox') el.checked = value === undefined ? el.defaultChecked : Boolean(value);
    else el.value = value === undefined || value === null ? '' : String(value);
  }
}
