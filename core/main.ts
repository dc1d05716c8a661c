/** The process entry: load the config, start the service, stop it cleanly on SIGTERM/SIGINT (exit 0). */
import { ConfigError, HELP, loadConfig } from './config/load';
import { createService } from './app';

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
  const service = createService(config);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.log.info({ signal }, 'stopping: finalising pipelines');
    service.close().then(() => process.exit(0), (err) => {
      service.log.error({ err }, 'stop failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await service.listen();
  service.log.info({ port: config.port, dataDir: config.dataDir }, 'encoderd ready');
}

main().catch((err) => {
  process.stderr.write(`encoderd: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
