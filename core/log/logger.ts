/**
 * One logger, with secrets redacted centrally: any field whose name says it holds a secret (password, token,
 * secret, authorization, cookie, api key, and webhook `headers` whole) at any depth, plus inside every logged
 * string `user:pass@` in URIs, `Bearer <token>`, API keys (`edk_…`) wherever they appear, and secret-named query
 * parameters, and the secrets plugins report in URIs (core/secrets/known-secrets.ts: every one a pipeline holds,
 * wherever it appears, and those of any URI a plugin accepts). Errors are serialised first, so their message and
 * stack are scrubbed too instead of being lost.
 */
import pino, { type Logger } from 'pino';
import { maskSecrets } from '../secrets/known-secrets';

export const REDACT_PATHS = [
  'password', '*.password', 'token', '*.token', 'headers', '*.headers', 'req.headers.authorization',
  'req.headers.cookie', 'authorization', '*.authorization',
];

const CENSOR = '[redacted]';
/** Field names whose values are secrets wherever they appear. `headers` is whole: webhook headers are write-only. */
const SECRET_KEY = /password|passwd|passphrase|secret|token|authori[sz]ation|cookie|api[-_]?key|credential|^headers$/i;
const CREDENTIALS_IN_URI = /([a-z][a-z0-9+.-]*:\/\/)[^/@\s"']*@/gi;
const BEARER = /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi;
/** An API key anywhere in a string, even glued to other text (core/auth/api-keys.ts). */
const API_KEY = /edk_[A-Za-z0-9_-]{16,}/g;
const SECRET_QUERY = /([?&](?:password|passwd|token|access_token|secret|api[-_]?key|auth)=)[^&#\s"']*/gi;

/** Replaces user:pass@ in URIs with ***@. */
export function redactUri(text: string): string {
  return text.replace(CREDENTIALS_IN_URI, '$1***@');
}

/** Every string-borne secret form: URI credentials, bearer/basic credentials, API keys, secret query parameters, URI secrets. */
export function redactText(text: string): string {
  return redactUri(maskSecrets(text)).replace(BEARER, `$1 ${CENSOR}`).replace(API_KEY, `edk_${CENSOR}`).replace(SECRET_QUERY, `$1${CENSOR}`);
}

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return scrub(pino.stdSerializers.err(value), depth + 1);
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEY.test(k) && v !== undefined && v !== null && typeof v !== 'boolean' ? CENSOR : scrub(v, depth + 1);
  }
  return out;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'encoderd' },
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      // Errors arrive here already serialised (and scrubbed) by the log formatter; serialising again would lose their type.
      serializers: { err: (e: unknown) => (e instanceof Error ? pino.stdSerializers.err(e) : e) },
      formatters: { log: (obj) => scrub(obj) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? redactText(a) : a)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
