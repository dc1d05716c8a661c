/**
 * The one serializer for values that go into a GStreamer pipeline description. Every user-supplied string
 * passes through gstString: GStreamer's parser reads a double-quoted value literally once `"` and `\` are
 * escaped, so `!`, spaces, newlines and `name=` tricks stay inside the value. NUL cannot be carried by a C
 * string at all, so it is refused here as a last line of defence (validation refuses it earlier). Each value is
 * parsed back as exactly itself: test/security/quote.test.ts checks that against the real parser.
 */
export function gstString(value: string): string {
  if (value.includes('\0')) throw new Error('a pipeline value cannot contain NUL');
  const text = value.startsWith('"') || value === 'NULL' ? gstSerialized(value) : value;
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * After the parser strips the outer quotes, a string property's deserializer still reads two forms specially:
 * `NULL` becomes no value, and a value that begins and ends with `"` is unwrapped as GStreamer's own serialized
 * string (where a lone `"` fails to parse). Such values are therefore sent in that serialized form
 * (gst_string_wrap's: plain ASCII as is, every other UTF-8 byte as a `\ooo` octal escape), which the
 * deserializer turns back into exactly the original text.
 */
function gstSerialized(value: string): string {
  let out = '"';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_+\-/:.]/.test(c) ? c : `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return `${out}"`;
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
