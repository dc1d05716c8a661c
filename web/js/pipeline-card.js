// One pipeline as a card: its picture, state and health with the reason, live bitrate and fps graphs, dropped
// frames, RTSP clients, uptime and the last error, and its main controls. Built once per pipeline and updated in
// place, so a stats event a second neither flickers nor steals the keyboard focus.
import { api, pipelinePath } from './api.js';
import { h } from './dom.js';
import { count, duration, encodingText, fps, kbps, sourceText } from './format.js';
import { graph } from './graph.js';
import { showMessage } from './message.js';
import { openPreview } from './preview.js';
import { HISTORY_SECONDS, state } from './state.js';
import { thumbnail } from './thumbnails.js';

export async function runAction(id, what, call) {
  try {
    await call();
    showMessage(`${id}: ${what}`, 'note');
  } catch (err) {
    showMessage(`${id}: ${err.message}`);
  }
}

export function playStop(p) {
  const play = h('button', { type: 'button', 'data-action': 'play', onclick: () => runAction(p.id, 'playing', () => api('PUT', `${pipelinePath(p.id)}/play`)) }, '▶ Play');
  const stop = h('button', { type: 'button', 'data-action': 'stop', onclick: () => runAction(p.id, 'stopped', () => api('PUT', `${pipelinePath(p.id)}/stop`)) }, '■ Stop');
  return { play, stop, update: (q) => { play.hidden = q.state === 'playing'; stop.hidden = q.state !== 'playing'; } };
}

function stat(label, valueEl, extra) {
  return h('div', { class: extra ? 'stat wide' : 'stat' }, h('dt', {}, label), h('dd', {}, valueEl, extra ?? ''));
}

export function pipelineCard(initial, { detail = false } = {}) {
  let p = initial;
  const thumb = thumbnail(p);
  const title = h('h2', { class: 'card-title' });
  const statePill = h('span', { class: 'state' });
  const badge = h('span', { class: 'badge', 'data-health': '' });
  const reason = h('p', { class: 'health-reason' });
  const summary = h('p', { class: 'summary mono' });
  const bitrateGraph = graph(`bitrate of ${p.id}, last ${HISTORY_SECONDS / 60} minutes`);
  const fpsGraph = graph(`frame rate of ${p.id}, last ${HISTORY_SECONDS / 60} minutes`);
  const values = { bitrate: h('span', { 'data-stat': 'bitrate' }), fps: h('span', { 'data-stat': 'fps' }), dropped: h('span', { 'data-stat': 'dropped' }),
    clients: h('span', { 'data-stat': 'rtsp_clients' }), uptime: h('span', { 'data-stat': 'uptime' }) };
  const stats = h('dl', { class: 'stats' },
    stat('Bitrate', values.bitrate, bitrateGraph.el), stat('FPS', values.fps, fpsGraph.el),
    stat('Dropped', values.dropped), stat('RTSP clients', values.clients), stat('Uptime', values.uptime));
  const lastError = h('p', { class: 'last-error', role: 'status' });
  const controls = playStop(p);
  const preview = h('button', { type: 'button', 'data-action': 'preview', onclick: () => openPreview(p) }, 'Preview');
  const details = detail ? null : h('a', { class: 'button', href: `#/pipeline/${encodeURIComponent(p.id)}`, 'data-action': 'details' }, 'Details');
  const el = h('article', { class: detail ? 'pipeline-card detail' : 'pipeline-card', 'data-id': p.id },
    h('header', {}, title, h('div', { class: 'pills' }, statePill, badge)),
    reason, thumb.el, summary, stats, lastError,
    h('div', { class: 'actions' }, controls.play, controls.stop, preview, details));

  function renderStats() {
    const s = state.stats.get(p.id) ?? p.stats;
    const hist = state.history.get(p.id) ?? [];
    bitrateGraph.update(hist.map((x) => x.bitrate), HISTORY_SECONDS, 10);
    fpsGraph.update(hist.map((x) => x.fps), HISTORY_SECONDS, p.encoding?.fps ?? 1);
    const playing = p.state === 'playing' && s;
    values.bitrate.textContent = playing ? kbps(s.output?.bitrate_kbps) : '–';
    values.fps.textContent = playing ? fps(s.output?.fps) : '–';
    values.dropped.textContent = playing ? count(s.dropped_frames) : '–';
    values.clients.textContent = playing ? count(s.rtsp_clients) : '–';
    values.uptime.textContent = playing ? duration(s.uptime_s) : '–';
  }

  function render() {
    el.dataset.state = p.state;
    el.dataset.health = p.health ?? 'ok';
    title.replaceChildren(p.id, p.persisted ? h('span', { class: 'tag', title: 'stored: survives a restart' }, 'stored') : '');
    statePill.className = `state ${p.state}`;
    statePill.textContent = p.state === 'playing' && p.started_by ? `playing (${p.started_by.replace('_', ' ')})` : p.state;
    badge.dataset.health = p.health ?? 'ok';
    badge.textContent = p.health ?? 'ok';
    badge.title = p.health_reason ?? '';
    reason.textContent = p.health_reason ?? '';
    reason.hidden = !p.health_reason;
    summary.textContent = `${sourceText(p)} → ${encodingText(p)} → ${p.output?.uri ?? ''}`;
    const err = p.last_error ?? p.stats?.last_error?.message ?? state.errors.get(p.id)?.message;
    lastError.textContent = err ? `Last error: ${err}` : '';
    lastError.hidden = !err;
    controls.update(p);
    thumb.update(p);
    renderStats();
  }

  render();
  return {
    el,
    thumb,
    update(next) {
      p = next;
      render();
    },
    updateStats: renderStats,
    destroy: () => thumb.destroy(),
  };
}
