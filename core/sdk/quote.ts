/**
 * The one serializer for values that go into a GStreamer pipeline description. Every user-supplied string
 * passes through gstString: GStreamer's parser reads a double-quoted value literally once `"` and `\` are
 * escaped, so `!`, spaces, newlines and `name=` tricks stay inside the value. NUL cannot be carried by a C
 * string at all, so it is refused here as a last line of defence (validation refuses it earlier).
 */
export function gstString(value: string): string {
  if (value.includes('\0')) throw new Error('a pipeline value cannot contain NUL');
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A number property; refuses anything that is not a finite number so no text can slip through. */
export function gstNumber(value: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`not a finite number: ${String(value)}`);
  return String(value);
}

export function gstInt(value: number): string {
  if (!Number.isInteger(value)) throw new Error(`not an integer: ${String(value)}`);
  return String(value);
}

export function gstBool(value: boolean): string {
  return value ? 'true' : 'false';
}

export type PropValue = string | number | boolean;

/**
 * `factory name=... key=value ...`, quoting every string. Keys are the plugin author's own identifiers,
 * never user input, and are checked to be plain property names.
 */
export function element(factory: string, props: Record<string, PropValue | undefined> = {}): string {
  if (!/^[a-z0-9_-]+$/i.test(factory)) throw new Error(`not an element factory name: ${factory}`);
  const parts = [factory];
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined) continue;
    if (!/^[a-z][a-z0-9-]*$/i.test(key)) throw new Error(`not a property name: ${key}`);
    const text = typeof value === 'string' ? gstString(value) : typeof value === 'boolean' ? gstBool(value) : gstNumber(value);
    parts.push(`${key}=${text}`);
  }
  return parts.join(' ');
}

/**
 * A capsfilter element for caps such as `video/x-raw,format=I420,width=640`. Always an element, never bare caps
 * text: GStreamer's grammar takes bare caps only between two elements, so two in a row would not parse.
 */
export function caps(media: string, fields: Record<string, string | number | undefined> = {}): string {
  return element('capsfilter', { caps: capsText(media, fields) });
}

/** Caps text such as `video/x-raw,format=I420,width=640`; field values are numbers or plain tokens. */
export function capsText(media: string, fields: Record<string, string | number | undefined> = {}): string {
  if (!/^[a-z]+\/[a-z0-9.+-]+$/i.test(media)) throw new Error(`not a media type: ${media}`);
  const parts = [media];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (!/^[a-z][a-z0-9-]*$/i.test(key)) throw new Error(`not a caps field: ${key}`);
    const text = typeof value === 'number' ? gstNumber(value) : value;
    if (typeof value === 'string' && !/^[a-z0-9/_.()-]+$/i.test(value)) throw new Error(`not a caps token: ${value}`);
    parts.push(`${key}=${text}`);
  }
  return parts.join(',');
}
