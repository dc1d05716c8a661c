/**
 * A network transport element a source or output puts in its fragment (a secure transport's socket, say), declared so that the
 * engine host can report on the connection it keeps: the figures the element keeps in a GstStructure property land
 * in the pipeline's `stats.transport` once a second, and its errors reach the operator with the plugin's context.
 * Declarative on purpose: the engine host runs the pipeline in another process, where plugin code does not run.
 * docs/plugins.md, "Transport statistics and errors".
 */

export interface Transport {
  /** The element, by the name the fragment gave it (ctx.name). */
  element: string;
  /**
   * Put in front of each error the element posts: which connection failed and what usually causes it, e.g.
   * `<protocol> source (caller to 10.0.0.5:9000)`. When GStreamer's message is generic ("Could not read from resource.")
   * and the element gave its own reason, the reason is reported instead.
   */
  errorContext?: string;
  /** Figures read from a structure-valued property of the element. */
  stats?: TransportStats;
}

export interface TransportStats {
  /** The property, e.g. `stats`. Read once a second while the pipeline plays; cheap by contract. */
  property: string;
  /**
   * Each figure of `stats.transport.<source|output>`: its name (snake_case, with its unit: `rtt_ms`, `send_rate_kbps`)
   * → where it comes from. A figure the element does not report (yet) is left out, never shown as 0.
   */
  figures: Record<string, TransportFigure>;
  /**
   * A field holding one structure per connected peer (a listener's callers). A figure absent from the top level is
   * combined across them; `count`, when given, names a figure that counts them (0 when none is connected).
   */
  peers?: { field: string; count?: string };
}

export interface TransportFigure {
  /** The structure's numeric field. */
  field: string;
  /** Multiplies the value: 1000 turns Mbit/s into kbit/s. */
  scale?: number;
  /** Across several peers: `sum` (counts and rates, the default) or `max` (round trip, latency). */
  combine?: 'sum' | 'max';
}
