/**
 * What a pipeline's engine host can tell about a definition before it runs: the elements of an advanced description
 * (its claims and encoders), and the codec a passed-through source sends. Each asks the host once; the caller owns
 * the host.
 */
import type { EngineHost } from '../engine/host-process';
import type { PluginRegistry } from '../plugins/registry';
import type { Claim } from '../sdk';
import type { ElementInfo } from '../../native';
import { inspectFacts } from '../compose/advanced';
import { CodecRefusedError, composePipeline, ComposeError, type ComposedPipeline, type ComposeSettings } from '../compose';
import type { PipelineDefinition } from './model';
import { SourceRefusedError } from './start-failure';

/** GStreamer parses description in host: what it holds and which encoders it runs (rejects NG_ERR_PARSE). */
export async function inspectDescription(host: EngineHost, description: string, registry: PluginRegistry): Promise<{ claims: Claim[]; features: string[] }> {
  const elements = await host.request<ElementInfo[]>({ op: 'inspect', description });
  return inspectFacts(elements, registry);
}

/**
 * Opens def's passed-through source in host and composes def with the codec found. Throws SourceRefusedError when
 * def cannot take that video (the client's mistake, by kind: a codec the output refuses, or no codec plugin for
 * it), and the host's error when the source cannot tell (silent, unreadable). replyMarginMs: how much longer than
 * the probe's own timeout the host's answer is waited for.
 */
export async function probeSource(
  host: EngineHost,
  def: PipelineDefinition,
  probe: { description: string; sink: string },
  deps: { registry: PluginRegistry; settings: ComposeSettings; timeoutMs: number; replyMarginMs: number },
): Promise<{ codec: string; composed: ComposedPipeline }> {
  const caps = await host.request<string>({ op: 'probe', ...probe, timeoutMs: deps.timeoutMs }, deps.timeoutMs + deps.replyMarginMs);
  const codec = deps.registry.codecByCaps(caps);
  if (!codec) {
    const media = caps.split(',')[0];
    throw new SourceRefusedError(`no codec plugin handles the source's video (${media})`,
      [`source.uri: the source's video (${media}) is no installed codec plugin's, so it cannot be passed through; set encoding to encode it`]);
  }
  try {
    return { codec: codec.codec, composed: composePipeline(def, deps.registry, deps.settings, codec.codec) };
  } catch (err) {
    if (err instanceof CodecRefusedError) {
      throw new SourceRefusedError(err.message, err.errors.map((m) => `${m} (the source's video is ${err.codec}, passed through: set encoding to encode it)`));
    }
    if (err instanceof ComposeError) throw new SourceRefusedError(err.message, [err.message]);
    throw err;
  }
}
