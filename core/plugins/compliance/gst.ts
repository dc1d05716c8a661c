/**
 * What the compliance checks ask of GStreamer (the real addon): does a description parse, does it run to
 * end-of-stream, did any text name an element the compose context did not hand out, is every string quoted.
 */
import type { Native } from '../../engine/native';

/** A failed compliance check: its message says what the plugin did and where. */
export class ComplianceError extends Error {}

export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ComplianceError(message);
}

export function parses(native: typeof Native, description: string): void {
  let p;
  try {
    p = new native.Pipeline(description, () => undefined);
  } catch (err) {
    throw new ComplianceError(`GStreamer cannot parse: ${description}\n${(err as Error).message}`);
  }
  p.destroy();
}

/** Runs description to end-of-stream: the fragment does not only parse, it negotiates and encodes. */
export async function runsToEos(native: typeof Native, description: string): Promise<void> {
  const errors: string[] = [];
  let eos!: () => void;
  const done = new Promise<void>((r) => { eos = r; });
  const p = new native.Pipeline(description, (m) => {
    if (m.type === 'eos') eos();
    if (m.type === 'error') {
      errors.push(m.message);
      eos();
    }
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await p.setState('playing', 10000);
    await Promise.race([done, new Promise((_, reject) => {
      timer = setTimeout(() => reject(new ComplianceError(`no EOS: ${description}`)), 15000);
    })]);
  } finally {
    clearTimeout(timer);
    p.destroy();
  }
  ensure(errors.length === 0, `${description}\nposted errors: ${errors.join('; ')}`);
}

/**
 * An injected `name=...` (a URI that escaped its quotes) would name an element: every element named from the text
 * must carry a name the context handed out (`given`) or GStreamer's own `factoryN`.
 */
export function checkNames(native: typeof Native, description: string, given: readonly string[]): void {
  const p = new native.Pipeline(description, () => undefined);
  try {
    for (const el of p.elements()) {
      if (el.factory === 'pipeline') continue;
      const auto = new RegExp(`^${el.factory.replace(/[^a-z0-9]/gi, '.')}\\d+$`);
      // Children a bin makes itself (decodebin's typefind) are named by GStreamer, not by the text.
      const fromText = description.includes(el.name);
      ensure(!fromText || given.includes(el.name) || auto.test(el.name), `element ${el.name} (${el.factory}) in ${description}`);
    }
  } finally {
    p.destroy();
  }
}

/**
 * Every `key=value` of a description whose value is not a plain token (number, enum nick, boolean) must be double
 * quoted, i.e. have gone through the SDK's serializer.
 */
export function unquotedValues(description: string): string[] {
  const tokens: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < description.length; i++) {
    const c = description[i];
    if (quoted && c === '\\') {
      cur += c + (description[++i] ?? '');
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (!quoted && /\s/.test(c)) {
      if (cur) tokens.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) tokens.push(cur);
  return tokens.filter((t) => {
    const eq = t.indexOf('=');
    if (eq < 0) return false;
    const value = t.slice(eq + 1);
    return !value.startsWith('"') && !/^[A-Za-z0-9_.+-]+$/.test(value);
  });
}

export function checkQuoted(description: string): void {
  const unquoted = unquotedValues(description);
  ensure(unquoted.length === 0, `unquoted value ${unquoted.join(', ')} in ${description} (build descriptions with element() and caps())`);
}
