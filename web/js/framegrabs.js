// Framegrab files (GET /api/files/framegrabs): a gallery, one pipeline's or all, with delete of one file and of
// all of a pipeline's. Files have no event, so the gallery reads the list when shown and on Refresh.
import { api, apiBlob } from './api.js';
import { dangerButton } from './confirm.js';
import { h } from './dom.js';
import { showMessage } from './message.js';

const SHOWN = 24;

export function gallery({ pipelineId } = {}) {
  let urls = [];
  const status = h('span', { class: 'muted', role: 'status' });
  const list = h('div', { class: 'gallery' });
  const groups = h('div', { class: 'gallery-groups' });
  const refreshButton = h('button', { type: 'button', class: 'small', 'data-action': 'refresh-framegrabs', onclick: () => refresh() }, 'Refresh');
  const el = h('div', { class: 'framegrab-gallery' }, h('div', { class: 'row' }, refreshButton, status), groups, list);

  function tile(f) {
    const img = h('img', { alt: f.file, loading: 'lazy', width: 160, height: 90 });
    apiBlob(`/files/framegrabs/${encodeURIComponent(f.file)}`).then((blob) => {
      const url = URL.createObjectURL(blob);
      urls.push(url);
      img.src = url;
    }, () => { img.alt = `${f.file} (could not be read)`; });
    return h('figure', { class: 'tile', 'data-file': f.file }, img,
      h('figcaption', {}, h('span', { class: 'mono' }, f.file), h('span', { class: 'muted' }, `${Math.round(f.size / 1024)} KiB · ${new Date(f.created_at).toLocaleString()}`),
        dangerButton('Delete', 'Confirm delete', async () => {
          try {
            await api('DELETE', `/files/framegrabs/${encodeURIComponent(f.file)}`);
            showMessage(`${f.file}: deleted`, 'note');
          } catch (err) {
            showMessage(err.message);
          }
          await refresh();
        }, { 'data-action': 'delete-file' })));
  }

  async function refresh() {
    for (const u of urls) URL.revokeObjectURL(u);
    urls = [];
    let files;
    try {
      files = await api('GET', `/files/framegrabs${pipelineId ? `?pipeline_id=${encodeURIComponent(pipelineId)}` : ''}`);
    } catch (err) {
      status.textContent = err.message;
      return;
    }
    const byPipeline = new Map();
    for (const f of files) byPipeline.set(f.pipeline_id, (byPipeline.get(f.pipeline_id) ?? 0) + 1);
    status.textContent = files.length ? `${files.length} file${files.length === 1 ? '' : 's'}${files.length > SHOWN ? `, the newest ${SHOWN} shown` : ''}` : 'no framegrabs';
    el.dataset.count = String(files.length);
    groups.replaceChildren(...[...byPipeline].map(([id, n]) => dangerButton(`Delete all ${n} of ${id}`, `Confirm: delete ${n} files of ${id}`, async () => {
      try {
        const r = await api('DELETE', `/files/framegrabs?pipeline_id=${encodeURIComponent(id)}`);
        showMessage(`${id}: ${r.deleted} framegrabs deleted`, 'note');
      } catch (err) {
        showMessage(err.message);
      }
      await refresh();
    }, { 'data-action': 'delete-all', 'data-pipeline': id })));
    list.replaceChildren(...files.slice(0, SHOWN).map(tile));
  }

  return { el, refresh };
}
