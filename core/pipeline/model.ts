/** A pipeline as the API sees it, and the record the manager keeps for it. */
import type { AudioSpec, EncodingSpec, OutputSpec, SourceSpec } from '../sdk';
import type { Health, PipelineStats } from './stats-model';

export type Mode = 'simple' | 'multiview' | 'advanced';
export type PipelineState = 'ready' | 'playing';
export type StartedBy = 'api' | 'auto_start' | 'on_demand' | null;

export interface Geolocation {
  latitude?: number;
  longitude?: number;
  mgrs?: string;
  altitude?: number;
  heading?: number;
}

export interface MultiviewInput {
  source: SourceSpec;
  label?: string;
  transform?: { mirror?: boolean; rotate?: 0 | 90 | 180 | 270; grayscale?: boolean };
  crop?: { top?: number; right?: number; bottom?: number; left?: number };
  overlay?: { text?: string; timestamp?: boolean };
}

/** What a client defines: everything the store keeps and a PUT replaces. */
export interface PipelineDefinition {
  id: string;
  mode: Mode;
  on_demand: boolean;
  source?: SourceSpec;
  inputs?: MultiviewInput[];
  encoding?: EncodingSpec;
  output?: OutputSpec;
  audio?: AudioSpec;
  raw_pipeline?: string;
  geolocation?: Geolocation | null;
}

export interface StoreMeta {
  auto_start: boolean;
  description: string;
}

/** The pipeline object of every response. */
export interface PipelineView extends PipelineDefinition {
  state: PipelineState;
  started_by: StartedBy;
  persisted: boolean;
  geolocation: Geolocation | null;
  klv: { available: boolean; state?: 'running' | 'stopped' };
  /** Framegrabs wanted for this pipeline (docs/framegrabs.md); captured while it plays. */
  framegrab: { state: 'running' | 'stopped'; interval_seconds?: number; quality?: number };
  last_error: string | null;
  /** What its media is doing (core/pipeline/stats.ts): ok, degraded or failing, and why when not ok. */
  health: Health;
  health_reason: string | null;
  /** Measured at the data plane while playing; null otherwise. */
  stats: PipelineStats | null;
  auto_start?: boolean;
  description?: string;
}
