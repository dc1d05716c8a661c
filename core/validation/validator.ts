/**
 * JSON-schema validation whose messages name the field the way operators read them:
 * `encoding.bitrate must be between 5 and 5000`, `audio.volume must be between 0.0 and 2.0`.
 * Schemas carry their defaults; a schema may set `x-decimal: true` to print bounds as decimals and
 * `x-pattern-message` to explain a pattern in words, and `x-message` to say every problem of that field in one
 * sentence (where the API's text predates the schema).
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';

export interface ValidationResult<T> {
  value?: T;
  errors: string[];
  /** True when every error is about a value's range or form rather than a field's presence or type. */
  onlyRangeErrors: boolean;
}

// verbose: errors carry their parentSchema, which the messages read for bounds and wording.
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, coerceTypes: false, verbose: true });
ajv.addKeyword({ keyword: 'x-decimal' });
ajv.addKeyword({ keyword: 'x-pattern-message' });
ajv.addKeyword({ keyword: 'x-message' });

const SHAPE_KEYWORDS = new Set(['type', 'additionalProperties', 'required', 'oneOf', 'anyOf', 'not', 'const', 'minProperties', 'dependentRequired']);

export function fieldName(instancePath: string, prefix = ''): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = prefix;
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out || 'body';
}

function bound(n: number, decimal: boolean): string {
  return decimal ? n.toFixed(1) : String(n);
}

const ARTICLE: Record<string, string> = {
  integer: 'an integer', number: 'a number', string: 'a string', boolean: 'a boolean', object: 'an object', array: 'an array', null: 'null',
};

function describe(err: ErrorObject, prefix: string): string {
  const schema = (err.parentSchema ?? {}) as Record<string, unknown>;
  const field = fieldName(err.instancePath, prefix);
  const decimal = schema['x-decimal'] === true;
  const hasMin = typeof schema.minimum === 'number';
  const hasMax = typeof schema.maximum === 'number';
  if (typeof schema['x-message'] === 'string') return `${field} ${schema['x-message']}`;
  switch (err.keyword) {
    case 'minimum':
    case 'maximum':
      if (hasMin && hasMax) return `${field} must be between ${bound(schema.minimum as number, decimal)} and ${bound(schema.maximum as number, decimal)}`;
      return hasMin ? `${field} must be at least ${bound(schema.minimum as number, decimal)}` : `${field} must be at most ${bound(schema.maximum as number, decimal)}`;
    case 'type': {
      const types = ([] as string[]).concat(err.params.type as string | string[]);
      return `${field} must be ${types.map((t) => ARTICLE[t] ?? t).join(' or ')}`;
    }
    case 'required':
      return `${fieldName(err.instancePath, prefix) === 'body' ? '' : `${field}.`}${err.params.missingProperty as string} is required`;
    case 'additionalProperties':
      return `${field === 'body' ? '' : `${field}.`}${err.params.additionalProperty as string} is not a supported field`;
    case 'enum':
      return `${field} must be one of ${(err.params.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      return `${field} ${typeof schema['x-pattern-message'] === 'string' ? schema['x-pattern-message'] : `must match ${err.params.pattern as string}`}`;
    case 'maxLength':
      return `${field} must be at most ${err.params.limit as number} characters`;
    case 'minLength':
      return (err.params.limit as number) === 1 ? `${field} must not be empty` : `${field} must be at least ${err.params.limit as number} characters`;
    case 'maxItems':
      return `${field} must have at most ${err.params.limit as number} items`;
    case 'minItems':
      return `${field} must have at least ${err.params.limit as number} item${(err.params.limit as number) === 1 ? '' : 's'}`;
    case 'maxProperties':
      return `${field} must have at most ${err.params.limit as number} entries`;
    case 'minProperties':
      return `${field} must not be empty`;
    case 'uniqueItems':
      return `${field} must not repeat items`;
    default:
      return `${field} ${err.message ?? 'is invalid'}`;
  }
}

export class SchemaValidator<T> {
  private readonly fn: ValidateFunction;
  constructor(schema: object, private readonly prefix = '') {
    this.fn = ajv.compile(schema);
  }

  /** Validates (and fills defaults into) a deep copy of input. */
  validate(input: unknown): ValidationResult<T> {
    const copy = input === undefined ? undefined : structuredClone(input);
    if (this.fn(copy)) return { value: copy as T, errors: [], onlyRangeErrors: true };
    // oneOf/anyOf failures repeat their branches' errors; keep the branch errors and drop the summary.
    const raw = (this.fn.errors ?? []).filter((e) => e.keyword !== 'if');
    const messages = [...new Set(raw.filter((e) => !(e.keyword === 'oneOf' || e.keyword === 'anyOf') || raw.length === 1).map((e) => describe(e, this.prefix)))];
    return { errors: messages, onlyRangeErrors: raw.every((e) => !SHAPE_KEYWORDS.has(e.keyword)) };
  }
}

/** A string with no control characters (they have no place in URIs, names or labels). */
export const PLAIN_TEXT = '^[^\\u0000-\\u001f\\u007f]*$';
