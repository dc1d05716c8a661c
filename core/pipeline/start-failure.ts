/** Which API error a failed start answers, by what failed and what was starting it (spec: POST lists only 504). */
import { ApiError, validationError } from '../errors/catalogue';
import { HostCommandError, HostGoneError } from '../engine/host-process';
import { maskSecrets } from '../secrets/known-secrets';

/**
 * A passed-through source whose video this definition cannot take (its output cannot carry the codec the probe
 * found, or no codec plugin knows it): the client's definition, not the engine, is at fault, though it is known
 * only once the source is opened. `errors` name the field, as validation errors do (docs/api.md, passthrough).
 */
export class SourceRefusedError extends Error {
  constructor(message: string, readonly errors: string[]) {
    super(message);
  }
}

/** What was starting: create and PUT answer a refusal with 400, play (which lists no 400) with 409. */
export type StartCause = 'create' | 'update' | 'play' | 'restore' | 'recover';

export function startFailure(err: unknown, why: StartCause): ApiError {
  if (err instanceof SourceRefusedError) {
    // Create and PUT list 400: the definition is refused. Play lists no 400, and no 5xx is true of it: 409, the
    // definition conflicts with what its source sends now (docs/errors.md).
    const errors = err.errors.map(maskSecrets);
    if (why === 'create' || why === 'update') return validationError(errors);
    return new ApiError('PIPELINE_CONFLICT', `the pipeline cannot play what its source sends: ${maskSecrets(err.message)}`);
  }
  // POST lists only 504 for a start that fails (spec), whatever the engine's reason.
  if (err instanceof ApiError && why === 'create' && (err.code === 'ENGINE_UNAVAILABLE' || err.code === 'ENGINE_ERROR')) {
    return new ApiError('PIPELINE_START_TIMEOUT', `pipeline did not reach playing: ${err.message}`);
  }
  if (err instanceof ApiError) return err;
  // The host's text may carry GStreamer's, which may echo an element's location with its secrets.
  const message = `pipeline did not reach playing: ${maskSecrets((err as Error).message)}`;
  if (err instanceof HostGoneError) return new ApiError(why === 'create' ? 'PIPELINE_START_TIMEOUT' : 'ENGINE_UNAVAILABLE', message);
  if (err instanceof HostCommandError && err.code === 'NG_ERR_PARSE' && why !== 'create') return new ApiError('ENGINE_ERROR', message);
  return new ApiError('PIPELINE_START_TIMEOUT', message);
}
