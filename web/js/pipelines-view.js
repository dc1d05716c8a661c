// The device page: every pipeline as a card (pipeline-card.js), kept in step with the event stream.
import { $, h } from './dom.js';
import { on, sortedPipelines, state } from './state.js';
import { pipelineCard } from './pipeline-card.js';
import { kickThumbnails } from './thumbnails.js';

const cards = new Map();

function sync() {
  const grid = $('#pipeline-grid');
  const list = sortedPipelines();
  for (const [id, card] of cards) {
    if (!state.pipelines.has(id)) {
      card.destroy();
      cards.delete(id);
    }
  }
  const els = list.map((p) => {
    let card = cards.get(p.id);
    if (!card) {
      card = pipelineCard(p);
      cards.set(p.id, card);
    }
    return card.el;
  });
  // Appending an element already in place moves nothing, so focus and pictures survive.
  els.forEach((el, i) => { if (grid.children[i] !== el) grid.insertBefore(el, grid.children[i] ?? null); });
  while (grid.children.length > els.length) grid.lastChild.remove();
  $('#empty').hidden = list.length > 0 || state.connection.state !== 'open';
  kickThumbnails();
}

export function setUpPipelinesView() {
  on('pipelines', sync);
  on('pipeline', (p) => { if (p) cards.get(p.id)?.update(p); });
  on('stats', (id) => cards.get(id)?.updateStats());
  on('connection', sync);
  $('#empty').replaceChildren('No pipelines yet. ', h('a', { href: '#/new' }, 'Create one'), '.');
}
