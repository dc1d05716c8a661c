/** Injection tokens: the seams between the core's parts (esbuild emits no decorator metadata, so always by token). */
export const TOKENS = {
  Config: Symbol('encoderd.Config'),
  Logger: Symbol('encoderd.Logger'),
  Store: Symbol('encoderd.Store'),
  PluginRegistry: Symbol('encoderd.PluginRegistry'),
  EngineHostFactory: Symbol('encoderd.EngineHostFactory'),
  PipelineEvents: Symbol('encoderd.PipelineEvents'),
  LicenceGate: Symbol('encoderd.LicenceGate'),
  PipelineManager: Symbol('encoderd.PipelineManager'),
} as const;
