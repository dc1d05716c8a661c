/**
 * The `rtsp` service (core/sdk RtspService): the addon's RTSP server on the output's host and port, one mount.
 * `feed`: the running pipeline's appsinks feed every client's media; `launch` (on demand): the whole description,
 * built when a client arrives and torn down after the last.
 */
import type { RtspService } from '../../sdk';
import type { ServiceStarter } from './service';

export const startRtsp: ServiceStarter = (native, spec, producer, emit) => {
  const s = spec as RtspService;
  const server = new native.RtspServer(s.host, s.port, (ev) => {
    emit({ type: ev.type, ...('clients' in ev ? { clients: ev.clients } : {}), ...('path' in ev ? { path: ev.path } : {}) });
  });
  try {
    if (s.mode === 'launch') server.mountLaunch(s.path, s.launch);
    else if (producer) server.mountFeed(s.path, producer, s.feeds);
    else throw Object.assign(new Error('an RTSP feed needs a running pipeline'), { code: 'NG_ERR_ARG' });
  } catch (err) {
    server.close();
    throw err;
  }
  return { clients: () => server.clientCount(), droppedEvents: () => server.droppedEvents(), close: () => server.close() };
};
