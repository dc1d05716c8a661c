/** Listening and closing for the service's own extra servers (web UI, explorer). */
import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';

/** Listens on host:port; resolves with the bound port, rejects when the port cannot be bound. */
export async function listenOn(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Closes a server at once: open keep-alive and SSE connections would otherwise hold close() for ever. */
export async function closeNow(server: { closeAllConnections(): void; close(cb: () => void): unknown }): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
