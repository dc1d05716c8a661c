/**
 * Composition: a pipeline definition into the description the engine host runs. Pure, no I/O. Each mode has its
 * module (simple.ts, multiview.ts, advanced.ts); the output end they share is tail.ts, their common types context.ts.
 */
import type { PluginRegistry } from '../plugins/registry';
import type { PipelineDefinition } from '../pipeline/model';
import { composeAdvanced } from './advanced';
import type { ComposedPipeline, ComposeSettings } from './context';
import { composeMultiview } from './multiview';
import { composeSimple } from './simple';

export * from './context';
export { composeSimple } from './simple';

/** Any mode: advanced descriptions from advanced.ts (macro expansion), multiview from multiview.ts, simple from simple.ts. */
export function composePipeline(def: PipelineDefinition, registry: PluginRegistry, settings: ComposeSettings, passthroughCodec?: string): ComposedPipeline {
  if (def.mode === 'advanced') return composeAdvanced(def, registry, settings);
  if (def.mode === 'multiview') return composeMultiview(def, registry, settings);
  return composeSimple(def, registry, settings, passthroughCodec);
}
