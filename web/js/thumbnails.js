// A playing pipeline's current picture, refreshed about once a second from GET /api/pipeline/{id}/snapshot.
// Fetched with the Authorization header (an <img src> could not send it) into a Blob and shown through an object
// URL; the previous URL is revoked once the next picture is shown. Nothing is fetched while the tab is hidden.
import { ApiFailure, apiBlob, pipelinePath } from './api.js';
import { h } from './dom.js';
import { hasPicture, noPictureReason } from './format.js';

const PERIOD_MS = 1000;
const RETRY_409_MS = 3000;
const RETRY_MS = 5000;
const live = new Set();

/** Starts the thumbnails that may have become visible (tab shown, view changed). */
export function kickThumbnails() {
  for (const t of live) t.kick();
}

document.addEventListener('visibilitychange', kickThumbnails);

export function thumbnail(initial) {
  let p = initial;
  let timer;
  let busy = false;
  let url = null;
  const img = h('img', { class: 'thumb-img', alt: `picture of ${p.id}`, hidden: true });
  const placeholder = h('div', { class: 'thumb-placeholder' });
  const el = h('div', { class: 'thumb' }, img, placeholder);

  const size = () => {
    const w = p.encoding?.width ?? 1280;
    const hh = p.encoding?.height ?? 720;
    img.width = w;
    img.height = hh;
    el.style.aspectRatio = `${w} / ${hh}`;
  };
  // Only what is on screen is fetched: a card on a hidden view asks for nothing.
  const wanted = () => p.state === 'playing' && hasPicture(p) && el.isConnected && el.checkVisibility();
  const placeholderText = (text) => {
    placeholder.textContent = text;
    placeholder.hidden = false;
    img.hidden = true;
  };

  img.addEventListener('load', () => {
    placeholder.hidden = true;
    img.hidden = false;
  });

  async function fetchOne() {
    timer = undefined;
    if (!wanted() || document.hidden || busy) return;
    busy = true;
    const started = Date.now();
    let next = PERIOD_MS;
    try {
      const blob = await apiBlob(`${pipelinePath(p.id)}/snapshot`);
      const old = url;
      url = URL.createObjectURL(blob);
      img.src = url;
      if (old) URL.revokeObjectURL(old);
      next = Math.max(0, PERIOD_MS - (Date.now() - started));
    } catch (err) {
      placeholderText(err instanceof ApiFailure ? `no picture: ${err.message}` : 'no picture: the service does not answer');
      next = err instanceof ApiFailure && err.status === 409 ? RETRY_409_MS : RETRY_MS;
    } finally {
      busy = false;
    }
    if (live.has(api)) schedule(next);
  }

  function schedule(ms) {
    clearTimeout(timer);
    timer = wanted() && !document.hidden ? setTimeout(fetchOne, ms) : undefined;
  }

  const api = {
    el,
    img,
    update(next) {
      p = next;
      size();
      if (p.state !== 'playing' || !hasPicture(p)) {
        clearTimeout(timer);
        timer = undefined;
        placeholderText(p.state === 'playing' ? `no picture: ${noPictureReason(p)}` : 'not playing');
      } else api.kick();
    },
    kick() {
      if (!timer && !busy && wanted()) {
        if (img.hidden) placeholderText('waiting for a picture…');
        schedule(0);
      }
    },
    destroy() {
      live.delete(api);
      clearTimeout(timer);
      if (url) URL.revokeObjectURL(url);
      url = null;
    },
  };
  live.add(api);
  api.update(initial);
  return api;
}
