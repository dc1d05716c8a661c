// Preview: a live player of a pipeline's output in the page (docs/web.md, "Preview"). It plays HLS, the one output
// a browser can play with a well-kept library (hls.js, served by the web server under /vendor/). A pipeline whose
// output is hls:// plays as it is. One whose output is a local RTSP server is offered a companion pipeline,
// `<id>-preview`, that reads that RTSP output into hls:// and is deleted when the player closes, so a preview costs
// nothing while nobody watches. Other outputs are told how.
import { api, authHeaders, pipelinePath } from './api.js';
import { h } from './dom.js';
import { state } from './state.js';

const HLS_SCRIPT = '/vendor/hls.min.js';
let hlsLoading;

function loadHls() {
  hlsLoading ??= new Promise((resolve, reject) => {
    const s = h('script', { src: HLS_SCRIPT });
    s.addEventListener('load', () => resolve(window.Hls));
    s.addEventListener('error', () => { hlsLoading = undefined; reject(new Error('the HLS player could not be loaded')); });
    document.head.append(s);
  });
  return hlsLoading;
}

/** Pure: host, port and path of a local RTSP server output, or null. */
export function localRtsp(uri) {
  const m = /^rtsp:\/\/(0\.0\.0\.0|127\.0\.0\.1|localhost|\[::\]|\[::1\])(?::(\d+))?(\/[^?#]*)?$/.exec(uri ?? '');
  return m ? { port: Number(m[2] ?? 554), path: m[3] || '/' } : null;
}

export const previewId = (id) => `${id.slice(0, 56)}-preview`;

/** Pure: the companion pipeline that turns a local RTSP output into HLS (H.264 passes through; other codecs are
 * encoded to H.264 at the pipeline's size, the only video codec HLS players play everywhere). */
export function companionBody(p) {
  const rtsp = localRtsp(p.output?.uri);
  const body = { id: previewId(p.id), mode: 'simple', source: { uri: `rtsp://127.0.0.1:${rtsp.port}${rtsp.path}` }, output: { uri: 'hls://?segment=1&playlist_length=3' } };
  if (p.encoding?.codec && p.encoding.codec !== 'h264') {
    body.encoding = { codec: 'h264', bitrate: p.encoding.bitrate, width: p.encoding.width, height: p.encoding.height, fps: p.encoding.fps };
  }
  return body;
}

const isHls = (p) => /^hls:/.test(p.output?.uri ?? '');

// hls.js does not retry a playlist that answers 404, which it does until the first segment is written: wait for one.
async function waitPlaylist(id, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const res = await fetch(`/api${pipelinePath(id)}/hls/index.m3u8`, { headers: authHeaders(), cache: 'no-store' }).catch(() => null);
    if (res?.ok && (await res.text()).includes('#EXTINF')) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${id} has written no HLS segment yet`);
}

async function waitPlaying(id, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (state.pipelines.get(id)?.state === 'playing') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${id} did not start playing`);
}

export function openPreview(p) {
  const status = h('p', { class: 'muted', role: 'status' });
  const video = h('video', { class: 'preview-video', muted: true, autoplay: true, playsinline: true, controls: true, width: p.encoding?.width, height: p.encoding?.height });
  video.muted = true;
  const close = h('button', { type: 'button', class: 'ghost', 'data-action': 'close-preview' }, 'Close');
  const body = h('div', { class: 'stack' }, status);
  const dialog = h('dialog', { class: 'preview', 'aria-label': `Preview of ${p.id}` },
    h('header', {}, h('h2', {}, `Preview: ${p.id}`), close), body);
  let hls;
  let companion = null;

  async function teardown() {
    hls?.destroy();
    hls = undefined;
    video.removeAttribute('src');
    if (companion) {
      const id = companion;
      companion = null;
      try {
        await api('PUT', `${pipelinePath(id)}/stop`);
        await api('DELETE', pipelinePath(id));
      } catch {
        /* already gone */
      }
    }
  }
  close.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', async () => {
    await teardown();
    dialog.remove();
  });

  async function play(id) {
    status.textContent = 'waiting for the first segment…';
    const [Hls] = await Promise.all([loadHls(), waitPlaylist(id, 20000)]);
    if (!Hls.isSupported()) throw new Error('this browser cannot play HLS (no Media Source Extensions)');
    body.append(video);
    hls = new Hls({
      // The page's CSP allows no blob: workers; and every request must carry the token in its header.
      enableWorker: false,
      liveSyncDurationCount: 1,
      liveMaxLatencyDurationCount: 3,
      manifestLoadingMaxRetry: 20,
      levelLoadingMaxRetry: 20,
      xhrSetup: (xhr) => {
        for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
      },
    });
    hls.on(Hls.Events.MANIFEST_PARSED, () => { status.textContent = 'live'; video.play().catch(() => {}); });
    hls.on(Hls.Events.ERROR, (_e, data) => { if (data.fatal) status.textContent = `the player stopped: ${data.details}`; });
    hls.loadSource(`/api${pipelinePath(id)}/hls/index.m3u8`);
    hls.attachMedia(video);
  }

  async function startCompanion() {
    const wanted = companionBody(p);
    status.textContent = `starting ${wanted.id}…`;
    try {
      await api('POST', '/pipeline', wanted);
    } catch (err) {
      if (err.status !== 409 || !state.pipelines.has(wanted.id)) throw err;
      await api('PUT', `${pipelinePath(wanted.id)}/play`);
    }
    companion = wanted.id;
    await waitPlaying(wanted.id, 15000);
    await play(wanted.id);
  }

  document.body.append(dialog);
  dialog.showModal();
  const fail = (err) => { status.textContent = err.message; };
  if (p.state !== 'playing') status.textContent = 'The pipeline is not playing: play it first.';
  else if (isHls(p)) play(p.id).catch(fail);
  else if (localRtsp(p.output?.uri)) {
    status.textContent = `This pipeline's output is an RTSP server. A browser cannot play RTSP: the preview runs a companion pipeline, ${previewId(p.id)}, that reads it into HLS while this window is open, and deletes it when you close it.`;
    body.append(h('button', { type: 'button', class: 'primary', 'data-action': 'start-companion', onclick: (ev) => { ev.target.remove(); startCompanion().catch(fail); } }, `Start ${previewId(p.id)}`));
  } else {
    status.textContent = 'A browser plays HLS. To preview this pipeline, give it an hls:// output (or a second pipeline with one), or a local RTSP output (rtsp://0.0.0.0:8554/name), which the preview can relay into HLS.';
  }
}
