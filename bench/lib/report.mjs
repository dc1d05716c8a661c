/**
 * Every benchmark prints its result as one JSON line on stdout (run.mjs collects them): what was asked, the
 * encoderd figure, the baseline's, the ratio or figure compared with the goal, and whether the goal was met.
 * `pass: null` means the benchmark could not run here; `reason` says why.
 */
const cleanups = [];

export function report(result) {
  process.stdout.write(`${JSON.stringify({ type: 'result', ...result })}\n`);
}

/** Progress for a human watching; run.mjs shows it indented. */
export function note(message) {
  process.stderr.write(`${message}\n`);
}

/** Registers what must be undone however the benchmark ends (services, gst-launch processes, temp dirs). */
export function atEnd(fn) {
  cleanups.push(fn);
}

async function cleanUp() {
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      await fn();
    } catch (err) {
      note(`cleanup failed: ${err?.message ?? err}`);
    }
  }
}

/**
 * Runs a benchmark's body; an unexpected failure is reported as a result too, never a silent exit. Stopped by
 * a signal (run.mjs's time limit, Ctrl-C), it still stops what it started: no service or gst-launch outlives it.
 */
export async function main(bench, question, fn) {
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => {
      report({ bench, question, pass: false, error: `stopped by ${signal} before it finished` });
      cleanUp().finally(() => process.exit(1));
    });
  }
  try {
    await fn();
  } catch (err) {
    report({ bench, question, pass: false, error: String(err?.stack ?? err) });
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}
