/**
 * The one error catalogue: every code the API answers with, its HTTP status and a default message.
 * The spec's codes come first, unchanged; codes are never reused for another meaning. A test checks this
 * table against the spec's Errors table and docs/errors.md, both ways.
 */
export const ERRORS = {
  VALIDATION_ERROR: { status: 400, message: 'Invalid request data' },
  FORMAT_ERROR: { status: 400, message: 'Unsupported field or invalid type' },
  WEBHOOK_LIMIT_REACHED: { status: 400, message: 'Webhook limit reached' },
  UNAUTHORIZED: { status: 401, message: 'Authentication required' },
  LICENSE_ERROR: { status: 402, message: 'Codec not licensed' },
  LICENSE_LIMIT_EXCEEDED: { status: 402, message: 'Licensed stream limit reached' },
  NOT_FOUND: { status: 404, message: 'Resource not found' },
  PIPELINE_NOT_FOUND: { status: 404, message: 'Pipeline not found' },
  PIPELINE_NOT_PERSISTED: { status: 404, message: 'Pipeline is not in storage' },
  CONFLICT: { status: 409, message: 'Pipeline is running' },
  PIPELINE_CONFLICT: { status: 409, message: 'Resource conflict' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported Content-Type' },
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  ENGINE_ERROR: { status: 500, message: 'Media engine failed' },
  ENGINE_UNAVAILABLE: { status: 503, message: 'Media engine unavailable' },
  PIPELINE_START_TIMEOUT: { status: 504, message: 'Pipeline did not reach playing' },
  // Beyond the spec's table (documented in docs/errors.md):
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  INTERNAL_ERROR: { status: 500, message: 'Internal error' },
  INSUFFICIENT_STORAGE: { status: 507, message: 'The data dir is full or read-only' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: { errors: string[] },
  ) {
    super(message ?? ERRORS[code].message);
    this.status = ERRORS[code].status;
  }

  toBody(): { message: string; code: ErrorCode; details?: { errors: string[] } } {
    return { message: this.message, code: this.code, ...(this.details ? { details: this.details } : {}) };
  }
}

/** 400 VALIDATION_ERROR (or FORMAT_ERROR) carrying messages that each name the field. */
export function validationError(errors: string[], code: 'VALIDATION_ERROR' | 'FORMAT_ERROR' = 'VALIDATION_ERROR'): ApiError {
  const message = errors.length === 1 ? errors[0] : `${errors.length} validation errors: ${errors.join('; ')}`;
  return new ApiError(code, message, { errors });
}
