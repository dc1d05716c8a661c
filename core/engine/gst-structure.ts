/**
 * GstStructure text, as gst_structure_to_string writes it and the addon's getProperty returns a structure-valued
 * property: `name, key=(type)value, key=(type)< "nested\,\ structure…", … >;`. Pure, so golden tests hold it to the
 * text real elements write. Only what figures need is kept: numbers, booleans, strings (a nested structure stays a
 * string until parseStructure reads it), lists, and null.
 */

export type GstValue = number | boolean | string | null | GstValue[];

export interface GstStructure {
  name: string;
  fields: Record<string, GstValue>;
}

const NUMERIC = /^(g?u?int(64)?|u?long|double|float|g?u?int8|g?u?int16|g?u?int32|i|d|f)$/;
const LIST_END: Record<string, string> = { '<': '>', '{': '}', '[': ']' };

class Reader {
  i = 0;
  constructor(readonly s: string) {}
  peek(): string {
    return this.s[this.i] ?? '';
  }
  spaces(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i])) this.i += 1;
  }
  /** Characters up to one of stops (backslash escapes taken literally), trimmed. */
  until(stops: string): string {
    let out = '';
    while (this.i < this.s.length && !stops.includes(this.s[this.i])) {
      if (this.s[this.i] === '\\' && this.i + 1 < this.s.length) this.i += 1;
      out += this.s[this.i];
      this.i += 1;
    }
    return out.trim();
  }
  quoted(): string {
    this.i += 1;
    let out = '';
    while (this.i < this.s.length && this.s[this.i] !== '"') {
      if (this.s[this.i] === '\\' && this.i + 1 < this.s.length) this.i += 1;
      out += this.s[this.i];
      this.i += 1;
    }
    this.i += 1;
    return out;
  }
}

function typed(type: string | null, text: string): GstValue {
  if (text === 'NULL') return null;
  if (type === 'boolean' || type === 'gboolean') return /^(true|yes|t|1)$/i.test(text);
  if (type && NUMERIC.test(type)) {
    const n = Number(text);
    return Number.isNaN(n) ? text : n;
  }
  return text;
}

function value(r: Reader, stops: string): GstValue {
  r.spaces();
  let type: string | null = null;
  if (r.peek() === '(') {
    r.i += 1;
    type = r.until(')');
    r.i += 1;
    r.spaces();
  }
  const c = r.peek();
  if (c === '"') return type && NUMERIC.test(type) ? typed(type, r.quoted()) : r.quoted();
  if (c in LIST_END) {
    const end = LIST_END[c];
    r.i += 1;
    const items: GstValue[] = [];
    for (;;) {
      r.spaces();
      if (r.peek() === end || r.i >= r.s.length) break;
      items.push(value(r, `,${end}`));
      r.spaces();
      if (r.peek() === ',') r.i += 1;
    }
    r.i += 1;
    return items;
  }
  return typed(type, r.until(stops));
}

/** The structure in text, or null when text is not one (empty, or no name). */
export function parseStructure(text: string): GstStructure | null {
  const r = new Reader(text.trim());
  const name = r.until(',;');
  if (!name || /[=\s]/.test(name)) return null;
  const fields: Record<string, GstValue> = {};
  while (r.peek() === ',') {
    r.i += 1;
    const key = r.until('=,;');
    if (r.peek() !== '=' || !key) return null;
    r.i += 1;
    fields[key] = value(r, ',;');
    r.spaces();
  }
  return { name, fields };
}
