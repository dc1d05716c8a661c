/**
 * The data-plane comparison set-up shared by the CPU and memory questions: one encoderd pipeline and one
 * gst-launch-1.0 of the same description, running at the same time, each sending MPEG-TS over UDP to its own
 * receiver in this process (the descriptions differ in the port, and in the KLV input gst-launch cannot feed:
 * gst.mjs baselineOf). Running both at once on the idle
 * machine means any other load on it falls on both alike.
 *
 * encoderd runs as an operator would watch it: statistics are always on in the engine host, and a
 * `?stats=true` status stream is held open for the whole run, so the once-a-second samples go the full way
 * (pad probes, IPC to the core, stats and health, SSE to a client). The run breaks if that stream falls silent.
 */
import { descriptions, gstLaunch } from './gst.mjs';
import { atEnd, note } from './report.mjs';
import { expectStatus, h264Body, startService } from './service.mjs';
import { sseWatch } from './sse.mjs';
import { sleep } from './stats.mjs';
import { tsReceiver } from './ts-receiver.mjs';

export async function sideBySide(encoding) {
  const svc = await startService();
  const rxEnc = await tsReceiver();
  const rxGst = await tsReceiver();
  atEnd(() => rxEnc.close());
  atEnd(() => rxGst.close());
  const body = h264Body('dp', `udp://127.0.0.1:${rxEnc.port}`, encoding);
  expectStatus(await svc.api('POST', '/svc/pipeline', body), 201, 'POST dp');
  const watcher = await sseWatch(svc, '/svc/pipeline/dp/status/events?stats=true');
  const hostPid = svc.hostPid('dp');
  if (!hostPid) throw new Error('no engine host process found for pipeline dp');
  const described = descriptions(h264Body('dp', `udp://127.0.0.1:${rxGst.port}`, encoding));
  const gst = gstLaunch(described.baseline);
  // Both must be producing before anything is compared: a stalled side would make any ratio meaningless.
  await sleep(2000);
  if (!gst.alive()) throw new Error(`gst-launch-1.0 ended:\n${gst.output()}`);
  if (rxEnc.frames.length < 30) throw new Error(`encoderd's output sent ${rxEnc.frames.length} frames in 2 s`);
  if (rxGst.frames.length < 30) throw new Error(`gst-launch-1.0's output sent ${rxGst.frames.length} frames in 2 s:\n${gst.output()}`);
  if (!watcher.between('pipeline_stats', 0, Infinity).length) throw new Error('the ?stats=true stream carried no pipeline_stats event in 2 s');
  note(`engine host pid ${hostPid}, gst-launch pid ${gst.pid}`);
  return { svc, hostPid, gst, rxEnc, rxGst, watcher, description: descriptions(body).encoderd, removed: described.removed };
}
