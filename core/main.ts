/** The process entry: load the config, start the service, stop it cleanly on SIGTERM/SIGINT (exit 0). */
import { ConfigError, HELP, loadConfig } from './config/load';
import { createService } from './app';
import { sdNotify } from './sd-notify';
import { checkDataDir, DATA_DIR_EXIT_CODE, DataDirError } from './store/data-dir';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.argv.slice(2));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`encoderd: ${err.message}\n\n${HELP}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  try {
    checkDataDir(config.dataDir);
  } catch (err) {
    if (!(err instanceof DataDirError)) throw err;
    process.stderr.write(`encoderd: ${err.message}\n`);
    process.exit(DATA_DIR_EXIT_CODE);
  }
  const service = createService(config);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.log.info({ signal }, 'stopping: finalising pipelines');
    void sdNotify('STOPPING=1', service.log);
    service.close().then(() => process.exit(0), (err) => {
      service.log.error({ err }, 'stop failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await service.listen();
  service.log.info({ port: config.port, dataDir: config.dataDir }, 'encoderd ready');
  // healthz answers 200 from here on: tell systemd (Type=notify).
  void sdNotify('READY=1', service.log);
}

main().catch((err) => {
  process.stderr.write(`encoderd: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
