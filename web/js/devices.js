// Cameras (from the event stream's camera_added/camera_removed, so hot-plug shows at once) and ALSA capture
// devices (GET /api/audio-devices, read again when a camera comes or goes: a USB camera often brings a microphone).
import { api } from './api.js';
import { $, h } from './dom.js';
import { on, state } from './state.js';

let audio = [];

export async function refreshAudioDevices() {
  try {
    audio = (await api('GET', '/audio-devices')).devices;
  } catch {
    audio = [];
  }
  // The audio device field of the pipeline form suggests these.
  $('#audio-devices').replaceChildren(...audio.map((d) => h('option', { value: d.device }, `${d.card_name}: ${d.name}`)));
}

export function devicesView(root) {
  const cameras = h('tbody');
  const camTable = h('table', { class: 'list', 'data-list': 'cameras' }, h('thead', {}, h('tr', {}, h('th', {}, 'Device'), h('th', {}, 'Name'), h('th', {}, 'Source URI'))), cameras);
  const camEmpty = h('p', { class: 'muted' }, 'No cameras.');
  const audioBody = h('tbody');
  const audioTable = h('table', { class: 'list', 'data-list': 'audio-devices' }, h('thead', {}, h('tr', {}, h('th', {}, 'Device'), h('th', {}, 'Name'), h('th', {}, 'Card'))), audioBody);
  const audioEmpty = h('p', { class: 'muted' }, 'No audio capture devices.');
  const renderCameras = () => {
    const list = [...state.cameras.values()].sort((a, b) => a.device_path.localeCompare(b.device_path));
    cameras.replaceChildren(...list.map((c) => h('tr', { 'data-device': c.device_path }, h('td', { class: 'mono' }, c.device_path), h('td', {}, c.device_name ?? ''), h('td', { class: 'mono' }, `file://${c.device_path}`))));
    camTable.hidden = list.length === 0;
    camEmpty.hidden = list.length > 0;
  };
  const renderAudio = async () => {
    await refreshAudioDevices();
    audioBody.replaceChildren(...audio.map((d) => h('tr', {}, h('td', { class: 'mono' }, d.device), h('td', {}, d.name), h('td', {}, `${d.card} ${d.card_name}`))));
    audioTable.hidden = audio.length === 0;
    audioEmpty.hidden = audio.length > 0;
  };
  root.replaceChildren(
    h('section', { class: 'card' }, h('h1', {}, 'Cameras'), h('p', { class: 'muted' }, 'Plugged and unplugged cameras appear and go at once.'), camTable, camEmpty),
    h('section', { class: 'card' }, h('h2', {}, 'Audio capture devices'), h('p', { class: 'muted' }, 'Use a device as the audio of a simple pipeline (source: local).'), audioTable, audioEmpty));
  renderCameras();
  renderAudio();
  const off = on('cameras', () => {
    renderCameras();
    renderAudio();
  });
  return off;
}
