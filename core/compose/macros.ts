/**
 * Encoder macros of advanced mode: `<svc:h264 bitrate=800 />` inside a raw pipeline description. Pure: find the
 * macros, check them against what each codec plugin declares, and splice in the expansions. The text a client
 * wrote is never changed; expansion happens on a copy at start.
 *
 * Grammar (self-closing only): `<svc:TAG (NAME=VALUE)* />`, VALUE an unsigned decimal integer, optionally in
 * single or double quotes. Anything else that starts with `<svc:` is an error naming the macro.
 */
import type { MacroAttribute } from '../sdk';

export interface MacroUse {
  tag: string;
  /** The macro as written, for messages. */
  text: string;
  /** Offsets of the macro in the description: [start, end). */
  start: number;
  end: number;
  /** Attributes as written (values unparsed). */
  attrs: Record<string, string>;
}

export interface ResolvedMacro extends MacroUse {
  /** Every declared attribute, defaults filled in. */
  values: Record<string, number>;
}

/** What a codec declares about its macro. */
export interface MacroDeclaration {
  tag: string;
  attributes: Record<string, MacroAttribute>;
}

const OPEN = '<svc:';
const TAG = /^[a-zA-Z0-9_-]*/;
const ATTR = /^([a-zA-Z_][a-zA-Z0-9_-]*)\s*=\s*("([^"]*)"|'([^']*)'|([^\s"'/>]+))/;
const INTEGER = /^[0-9]{1,9}$/;

function label(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine;
}

/** Finds every `<svc:...>` in text. Syntax errors are messages; well-formed macros are returned in order. */
export function scanMacros(text: string): { uses: MacroUse[]; errors: string[] } {
  const uses: MacroUse[] = [];
  const errors: string[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf(OPEN, from);
    if (start < 0) break;
    let i = start + OPEN.length;
    const tag = TAG.exec(text.slice(i))![0];
    i += tag.length;
    const attrs: Record<string, string> = {};
    let problem: string | null = tag ? null : 'a macro needs a name after "svc:"';
    while (!problem) {
      const ws = /^\s*/.exec(text.slice(i))![0];
      i += ws.length;
      if (text.startsWith('/>', i)) {
        i += 2;
        break;
      }
      if (i >= text.length || text[i] === '<') {
        problem = 'is not closed with "/>"';
        break;
      }
      if (text[i] === '>') {
        problem = 'must be self-closing: end it with "/>"';
        i += 1;
        break;
      }
      if (!ws && Object.keys(attrs).length > 0) {
        problem = 'attributes must be separated by spaces';
        break;
      }
      const m = ATTR.exec(text.slice(i));
      if (!m) {
        problem = 'attributes must be written name=value';
        break;
      }
      if (m[1] in attrs) {
        problem = `attribute ${m[1]} is given twice`;
        break;
      }
      attrs[m[1]] = m[3] ?? m[4] ?? m[5];
      i += m[0].length;
    }
    if (problem) {
      // Name the macro as far as it goes (to its '>' when it has one) and go on after it.
      const close = text.indexOf('>', start);
      const next = text.indexOf(OPEN, start + 1);
      const end = close >= 0 && (next < 0 || close < next) ? close + 1 : next >= 0 ? next : text.length;
      errors.push(`raw_pipeline macro ${label(text.slice(start, end).trim())}: ${problem}`);
      from = end;
      continue;
    }
    uses.push({ tag, text: text.slice(start, i), start, end: i, attrs });
    from = i;
  }
  return { uses, errors };
}

function checkValue(name: string, raw: string, decl: MacroAttribute): string | null {
  const range = decl.oneOf ? `one of ${decl.oneOf.join(', ')}` : `an integer between ${decl.min} and ${decl.max}`;
  if (!INTEGER.test(raw)) return `${name} must be ${range}`;
  const value = Number(raw);
  if (decl.oneOf) return decl.oneOf.includes(value) ? null : `${name} must be ${range}`;
  if ((decl.min !== undefined && value < decl.min) || (decl.max !== undefined && value > decl.max)) {
    return `${name} must be between ${decl.min} and ${decl.max}`;
  }
  return null;
}

/**
 * Checks every macro of text against the declarations (looked up by tag). Messages name the macro as written,
 * e.g. `raw_pipeline macro <svc:h264 bitrate=0 />: bitrate must be between 5 and 5000`.
 */
export function resolveMacros(text: string, lookup: (tag: string) => MacroDeclaration | undefined, knownTags: readonly string[]):
  { macros: ResolvedMacro[]; errors: string[] } {
  const { uses, errors } = scanMacros(text);
  const macros: ResolvedMacro[] = [];
  for (const use of uses) {
    const decl = lookup(use.tag);
    const name = `raw_pipeline macro ${label(use.text)}`;
    if (!decl) {
      errors.push(`${name}: unknown macro svc:${use.tag}; known macros are ${knownTags.map((t) => `svc:${t}`).join(', ') || 'none'}`);
      continue;
    }
    const problems: string[] = [];
    const values: Record<string, number> = {};
    for (const attr of Object.keys(use.attrs)) {
      if (!(attr in decl.attributes)) {
        const allowed = Object.keys(decl.attributes);
        problems.push(`unknown attribute ${attr}; svc:${use.tag} takes ${allowed.length ? allowed.join(', ') : 'no attributes'}`);
      }
    }
    for (const [attr, d] of Object.entries(decl.attributes)) {
      const raw = use.attrs[attr];
      if (raw === undefined) {
        values[attr] = d.default;
        continue;
      }
      const problem = checkValue(attr, raw, d);
      if (problem) problems.push(problem);
      else values[attr] = Number(raw);
    }
    if (problems.length) errors.push(...problems.map((p) => `${name}: ${p}`));
    else macros.push({ ...use, values });
  }
  return { macros, errors };
}

/** Replaces each resolved macro of text by its expansion, in order of appearance (so element names number in order). */
export function expandMacros(text: string, macros: readonly ResolvedMacro[], expand: (macro: ResolvedMacro) => string): string {
  let out = '';
  let at = 0;
  for (const m of [...macros].sort((a, b) => a.start - b.start)) {
    out += `${text.slice(at, m.start)}${expand(m)}`;
    at = m.end;
  }
  return out + text.slice(at);
}
