// The bounded queue from streaming threads to the JS thread (native/src/pipeline.h, NG_QUEUE_MAX): a JS thread that
// stalls while a pipeline floods its bus costs a bounded number of queued messages, what did not fit is counted in
// ipcDropped(), and the messages the core must see (state changes, EOS) still arrive.
import { describe, expect, it } from 'vitest';
import { livePipelines, native, sleep, type Native } from '../helpers/native';

const live = livePipelines();

function busy(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) { /* the JS thread stalls: nothing drains the queue */ }
}

describe('the queue to the JS thread', () => {
  it('drops and counts element messages past its bound while JS is blocked, and keeps EOS', async () => {
    const messages: Native.BusMessage[] = [];
    // level posts one message per millisecond of audio: about 1000 a second.
    const p = new native.Pipeline('audiotestsrc is-live=true samplesperbuffer=441 ! level interval=1000000 post-messages=true ! '
      + 'fakesink sync=false', (m) => messages.push(m));
    live.push(p);
    await p.setState('playing', 5000);
    await sleep(300);
    expect(p.ipcDropped()).toMatchObject({ messages: 0, samples: 0 });
    const before = messages.length;
    expect(before).toBeGreaterThan(100);

    busy(3000);
    p.sendEos(); // posted on the bus while the queue is still full of level messages
    const queued = p.ipcDropped().queued;
    busy(200);
    // What waited is bounded (1024 places, 64 of them kept for state changes, errors and EOS), not 3 s of messages.
    expect(queued).toBeLessThanOrEqual(1024);
    expect(queued).toBeGreaterThanOrEqual(900);
    const dropped = p.ipcDropped().messages;
    expect(dropped).toBeGreaterThan(1000);

    await sleep(0); // one turn: the queue drains
    const burst = messages.length - before;
    expect(burst).toBeLessThanOrEqual(1024);
    const deadline = Date.now() + 5000;
    while (!messages.some((m) => m.type === 'eos') && Date.now() < deadline) await sleep(20);
    expect(messages.some((m) => m.type === 'eos')).toBe(true);
    expect(p.ipcDropped().messages).toBeGreaterThanOrEqual(dropped);
  });

  it('keeps at most 32 samples waiting, and counts the rest', async () => {
    let samples = 0;
    const p = new native.Pipeline('videotestsrc is-live=true ! video/x-raw,width=64,height=48,framerate=100/1 ! '
      + 'appsink name=out sync=false', (m) => { if (m.type === 'sample') samples += 1; });
    live.push(p);
    p.watchSink('out');
    await p.setState('playing', 5000);
    await sleep(200);
    const before = samples;
    busy(1500);
    const d = p.ipcDropped();
    expect(d.queued).toBeLessThanOrEqual(32);
    expect(d.samples).toBeGreaterThan(50);
    // What waited is what `queued` said (more may arrive while the queue drains, so the delivered count is no bound).
    await sleep(300);
    expect(samples - before).toBeGreaterThan(32); // delivery goes on after the stall
  });
});
