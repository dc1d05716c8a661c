/** The settings record (design §5): its fields, limits and defaults. */
import { PLAIN_TEXT, SchemaValidator } from '../validation/validator';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface Settings {
  /** How the appliance names itself to operators (UI title, exports). */
  device_name: string;
  /** Framegrab files kept per pipeline; older ones are deleted first. */
  framegrab_retention: number;
  /** Jitter-buffer latency of RTSP sources without their own `latency_ms`, in ms. */
  rtsp_latency_ms: number;
  log_level: (typeof LOG_LEVELS)[number];
  /** Whether the API explorer may serve (it also needs an explorer port). */
  explorer_enabled: boolean;
}

const fields = {
  device_name: { type: 'string', minLength: 1, maxLength: 64, pattern: PLAIN_TEXT, 'x-pattern-message': 'must not contain control characters' },
  framegrab_retention: { type: 'integer', minimum: 1, maximum: 10000 },
  rtsp_latency_ms: { type: 'integer', minimum: 0, maximum: 10000 },
  log_level: { type: 'string', enum: [...LOG_LEVELS] },
  explorer_enabled: { type: 'boolean' },
} as const;

/** A PUT body: any subset of the fields, at least one, nothing else. */
export const settingsPatchSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: fields,
} as const;

/** A whole record (what GET answers and what the store holds). */
export const settingsSchema = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(fields),
  properties: fields,
} as const;

export function defaultSettings(logLevel: Settings['log_level']): Settings {
  return { device_name: 'encoderd', framegrab_retention: 100, rtsp_latency_ms: 200, log_level: logLevel, explorer_enabled: false };
}

export const patchValidator = new SchemaValidator<Partial<Settings>>(settingsPatchSchema);
export const recordValidator = new SchemaValidator<Settings>(settingsSchema);
