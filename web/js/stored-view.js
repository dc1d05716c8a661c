// Stored pipelines: those whose object says `persisted`, with auto_start and description, live from the stream.
// The API has no list of the store itself; a stored copy whose active pipeline was deleted comes back at restart.
import { h } from './dom.js';
import { on, sortedPipelines } from './state.js';

export function storedView(root) {
  const body = h('tbody');
  const table = h('table', { class: 'list', 'data-list': 'stored' }, h('thead', {}, h('tr', {}, h('th', {}, 'Pipeline'), h('th', {}, 'Starts with the service'), h('th', {}, 'Description'), h('th', {}, 'State'))), body);
  const empty = h('p', { class: 'muted' }, 'Nothing is stored. Store a pipeline from its page.');
  const render = () => {
    const list = sortedPipelines().filter((p) => p.persisted);
    body.replaceChildren(...list.map((p) => h('tr', { 'data-id': p.id },
      h('td', {}, h('a', { href: `#/pipeline/${encodeURIComponent(p.id)}` }, p.id)), h('td', {}, p.auto_start ? 'yes' : 'no'), h('td', {}, p.description ?? ''), h('td', {}, p.state))));
    table.hidden = list.length === 0;
    empty.hidden = list.length > 0;
  };
  root.replaceChildren(h('section', { class: 'card' }, h('h1', {}, 'Stored pipelines'), table, empty));
  render();
  return on('pipelines', render);
}
