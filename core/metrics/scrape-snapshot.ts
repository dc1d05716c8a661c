/**
 * What one scrape reads. prom-client asks every metric family for its values in turn (each family's collect());
 * reading the manager (or /proc) once per scrape instead of once per family makes all families of one scrape
 * describe the same pipelines (one deleted mid-scrape is in all of them or in none), and keeps a scrape's cost
 * at one metricsRows() call.
 */

/**
 * Wraps a reading: the first call reads, later calls in the same turn of the event loop get the same value
 * (registry.metrics() calls every collect() synchronously, one after the other), the next turn reads again.
 */
export function oncePerScrape<T>(read: () => T): () => T {
  let value: { v: T } | null = null;
  return () => {
    if (value === null) {
      value = { v: read() };
      setImmediate(() => { value = null; });
    }
    return value.v;
  };
}
