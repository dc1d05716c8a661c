/** Which API error a failed start answers, by what failed and what was starting it (spec: POST lists only 504). */
import { ApiError } from '../errors/catalogue';
import { HostCommandError, HostGoneError } from '../engine/host-process';
import { maskSecrets } from '../secrets/known-secrets';

export function startFailure(err: unknown, why: string): ApiError {
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
