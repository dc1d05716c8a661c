/**
 * One logger, with secrets redacted centrally: passwords, tokens, authorization and webhook headers by path,
 * and `user:pass@` inside any URI in any logged string.
 */
import pino, { type Logger } from 'pino';

export const REDACT_PATHS = [
  'password', '*.password', 'token', '*.token', 'headers', '*.headers', 'req.headers.authorization',
  'req.headers.cookie', 'authorization', '*.authorization',
];

const CREDENTIALS_IN_URI = /([a-z][a-z0-9+.-]*:\/\/)[^/@\s"']*@/gi;

/** Replaces user:pass@ in URIs with ***@. */
export function redactUri(text: string): string {
  return text.replace(CREDENTIALS_IN_URI, '$1***@');
}

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactUri(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = scrub(v, depth + 1);
  return out;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'encoderd' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { log: (obj) => scrub(obj) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? redactUri(a) : a)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
