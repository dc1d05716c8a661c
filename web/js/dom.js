// A tiny element builder. Text always goes in as text nodes, never as HTML: pipeline ids, URIs and error
// messages come from the API and may contain anything.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** SVG elements, built the same way (the graphs). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined && value !== null) el.setAttribute(name, String(value));
  el.append(...children);
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

export function show(el, visible) {
  el.hidden = !visible;
}

let nextId = 0;
/** A label tied to its control (for/id), with an optional hint; the control's `name` is the API field it edits. */
export function field(text, control, hint) {
  control.id ||= `f${++nextId}`;
  const hintEl = hint ? h('small', { class: 'hint', id: `${control.id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  const wrap = h('div', { class: control.type === 'checkbox' ? 'field check' : 'field' });
  const label = h('label', { for: control.id }, text);
  if (control.type === 'checkbox') wrap.append(control, label, hintEl ?? '');
  else wrap.append(label, control, hintEl ?? '');
  return wrap;
}

export const input = (name, attrs = {}) => h('input', { name, ...attrs });
export const checkbox = (name, checked = false, attrs = {}) => h('input', { name, type: 'checkbox', checked, ...attrs });

/** A select of [value, text] pairs; values that are numbers are sent as numbers (data-type). */
export function select(name, options, attrs = {}) {
  return h('select', { name, ...attrs }, options.map(([value, text]) => h('option', { value }, text ?? value)));
}
