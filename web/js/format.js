// Pure formatting of figures for the page.
export function duration(s) {
  if (s === null || s === undefined) return '–';
  if (s < 120) return `${Math.floor(s)} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min`;
  if (s < 172800) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d`;
}

export const kbps = (v) => (v === null || v === undefined ? '–' : v >= 1000 ? `${(v / 1000).toFixed(2)} Mbit/s` : `${Math.round(v)} kbit/s`);
export const fps = (v) => (v === null || v === undefined ? '–' : `${Number(v).toFixed(1)} fps`);
export const count = (v) => (v === null || v === undefined ? '–' : String(v));

export function encodingText(p) {
  const e = p.encoding;
  if (!e) return p.mode === 'advanced' ? 'advanced' : 'passthrough';
  const parts = [e.codec ?? '?'];
  if (e.width && e.height) parts.push(`${e.width}×${e.height}`);
  if (e.fps) parts.push(`${e.fps} fps`);
  if (e.bitrate) parts.push(`${e.bitrate} kbps`);
  return parts.join(' · ');
}

export function sourceText(p) {
  if (p.source) return p.source.uri;
  if (p.inputs) return p.inputs.map((i) => i.source?.uri ?? '?').join(', ');
  return p.mode === 'advanced' ? 'GStreamer description' : '';
}

/** Whether the pipeline has a picture the snapshot route can take (docs/api.md, "Snapshots"). */
export function hasPicture(p) {
  if (p.on_demand) return false;
  if (p.mode === 'multiview') return true;
  return p.mode === 'simple' && Boolean(p.encoding);
}

export function noPictureReason(p) {
  if (p.on_demand) return 'on demand: the picture exists only while an RTSP client watches';
  if (p.mode === 'advanced') return 'advanced mode: nothing in it is decoded for a picture';
  if (!p.encoding) return 'passthrough: the stream is not decoded';
  return 'not playing';
}
