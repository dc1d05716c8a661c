// What the console knows, fed by the event stream (live-stream.js): pipelines by id, their recent statistics,
// cameras by device path, and the stream's own state. Views subscribe to the kinds of change they show.
export const HISTORY_SECONDS = 300;

export const state = {
  pipelines: new Map(),
  /** id → [{t, bitrate, fps}], one sample a second, the last HISTORY_SECONDS. */
  history: new Map(),
  /** id → the latest pipeline_stats */
  stats: new Map(),
  /** id → the last pipeline_error message with its time */
  errors: new Map(),
  cameras: new Map(),
  connection: { state: 'connecting' },
};

const listeners = new Map();

/** Subscribes to one kind of change ('pipelines', 'pipeline', 'stats', 'cameras', 'connection'); returns the unsubscribe. */
export function on(kind, fn) {
  if (!listeners.has(kind)) listeners.set(kind, new Set());
  listeners.get(kind).add(fn);
  return () => listeners.get(kind).delete(fn);
}

export function emit(kind, payload) {
  for (const fn of listeners.get(kind) ?? []) fn(payload);
}

/** Pure: a history with one more sample, trimmed to the window. */
export function pushSample(history, sample, windowS = HISTORY_SECONDS) {
  const next = [...history, sample];
  const from = sample.t - windowS * 1000;
  while (next.length && next[0].t < from) next.shift();
  return next;
}

export const sortedPipelines = () => [...state.pipelines.values()].sort((a, b) => a.id.localeCompare(b.id));
