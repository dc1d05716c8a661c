/** The service configuration: its schema is where the defaults live. */

/**
 * RLIMIT_AS of an engine host. Address space, not RSS: Node reserves about 1 GiB before any pipeline (it does not
 * start under 768 MiB) and every GStreamer thread reserves its stack and malloc arena. The figure was measured
 * (docs/operations.md, "Limits"): x265 at 1080p30 and quality 10 in a host peaks well below it; 16384×16384 x265
 * (which the codec limits now refuse) would take 6.5 GB.
 */
const HOST_MEMORY_MAX_MB = 4096;
/** Above any one pipeline the codec limits allow (1 069 547 520 for H.265 and AV1): only a sum is refused. */
const MAX_TOTAL_PIXEL_RATE = 1_200_000_000;
/**
 * Recovery of a dead host or a lost source waits a backoff that doubles from the base to the maximum: quick enough
 * that a one-off crash costs half a second, slow enough that a host that dies at every start does not spin a core.
 */
const RESTART_BACKOFF_BASE_MS = 500;
const RESTART_BACKOFF_MAX_MS = 30_000;
/** A host that has not said `ready` by then is killed: loading GStreamer's registry cold on an arm64 appliance takes seconds. */
const HOST_START_TIMEOUT_MS = 15_000;
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  webPort: number;
  explorerPort: number;
  licence: string | null;
  licenceKey: string | null;
  pluginsDir: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  tlsCert: string | null;
  tlsKey: string | null;
  /** Addresses whose X-Forwarded-For is believed (the web UI's own proxy). */
  trustedProxies: string[];
  startTimeoutMs: number;
  stopTimeoutMs: number;
  bodyLimit: number;
  /** SSE keepalive comment interval (the spec's 30 s; shorter only for tests). */
  sseKeepaliveMs: number;
  /** Where ALSA's proc files are read (audio device discovery); tests point it at fixture trees. */
  procAsoundRoot: string;
  /** Each engine host's address-space ceiling in MiB (RLIMIT_AS; docs/operations.md, "Limits"); 0: none. */
  hostMemoryMaxMb: number;
  /** The most width × height × fps all playing encoding pipelines may add up to; a start beyond it is refused. 0: none. */
  maxTotalPixelRate: number;
  /** The first wait before a dead host or a lost source is recovered; it doubles at each failed attempt. */
  restartBackoffBaseMs: number;
  /** The ceiling of that doubling wait. */
  restartBackoffMaxMs: number;
  /** How long a new engine host may take to say it is ready before it is killed (a failed host start). */
  hostStartTimeoutMs: number;
  /**
   * Which engine host runs each pipeline: `native` (the executable native/build/encoderd-host, docs/engine-host.md;
   * the default) or `node` (core/engine/host-main.ts on the addon). Same protocol, same isolation.
   */
  engineHost: 'node' | 'native';
  /**
   * Keep one engine host started and idle for the next pipeline start that needs a host, and start another as it is
   * taken (docs/engine-host.md, "The spare host"): a create's start path holds only the pipeline, for an idle host's RSS.
   */
  spareEngineHost: boolean;
}

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 3539 },
    host: { type: 'string', minLength: 1, default: '0.0.0.0' },
    dataDir: { type: 'string', minLength: 1, default: './data' },
    webPort: { type: 'integer', minimum: 0, maximum: 65535, default: 8443 },
    explorerPort: { type: 'integer', minimum: 0, maximum: 65535, default: 0 },
    licence: { type: ['string', 'null'], default: null },
    licenceKey: { type: ['string', 'null'], default: null },
    pluginsDir: { type: ['string', 'null'], default: null },
    logLevel: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    tlsCert: { type: ['string', 'null'], default: null },
    tlsKey: { type: ['string', 'null'], default: null },
    trustedProxies: { type: 'array', items: { type: 'string' }, default: ['127.0.0.1', '::1'] },
    startTimeoutMs: { type: 'integer', minimum: 500, maximum: 120000, default: 10000 },
    stopTimeoutMs: { type: 'integer', minimum: 100, maximum: 60000, default: 5000 },
    bodyLimit: { type: 'integer', minimum: 1024, maximum: 16777216, default: 1048576 },
    sseKeepaliveMs: { type: 'integer', minimum: 100, maximum: 300000, default: 30000 },
    procAsoundRoot: { type: 'string', minLength: 1, default: '/proc/asound' },
    hostMemoryMaxMb: { type: 'integer', minimum: 0, maximum: 1048576, default: HOST_MEMORY_MAX_MB },
    maxTotalPixelRate: { type: 'integer', minimum: 0, default: MAX_TOTAL_PIXEL_RATE },
    restartBackoffBaseMs: { type: 'integer', minimum: 10, maximum: 600000, default: RESTART_BACKOFF_BASE_MS },
    restartBackoffMaxMs: { type: 'integer', minimum: 10, maximum: 3600000, default: RESTART_BACKOFF_MAX_MS },
    hostStartTimeoutMs: { type: 'integer', minimum: 500, maximum: 120000, default: HOST_START_TIMEOUT_MS },
    engineHost: { type: 'string', enum: ['node', 'native'], default: 'native' },
    spareEngineHost: { type: 'boolean', default: true },
  },
} as const;

/** Flag and variable names: --data-dir ⇔ ENCODERD_DATA_DIR ⇔ dataDir. */
export const OPTION_NAMES: Record<keyof Config, string> = {
  port: 'port', host: 'host', dataDir: 'data-dir', webPort: 'web-port', explorerPort: 'explorer-port',
  licence: 'licence', licenceKey: 'licence-key', pluginsDir: 'plugins-dir', logLevel: 'log-level',
  tlsCert: 'tls-cert', tlsKey: 'tls-key', trustedProxies: 'trusted-proxies', startTimeoutMs: 'start-timeout-ms',
  stopTimeoutMs: 'stop-timeout-ms', bodyLimit: 'body-limit', sseKeepaliveMs: 'sse-keepalive-ms', procAsoundRoot: 'proc-asound-root',
  hostMemoryMaxMb: 'host-memory-max-mb', maxTotalPixelRate: 'max-total-pixel-rate',
  restartBackoffBaseMs: 'restart-backoff-base-ms', restartBackoffMaxMs: 'restart-backoff-max-ms', hostStartTimeoutMs: 'host-start-timeout-ms',
  engineHost: 'engine-host', spareEngineHost: 'spare-engine-host',
};
