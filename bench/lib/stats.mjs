/** Small statistics over arrays of numbers. */
export function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

export const median = (values) => percentile(values, 50);

export const round = (v, digits = 2) => (Number.isFinite(v) ? Number(v.toFixed(digits)) : v);

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
