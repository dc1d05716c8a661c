/**
 * ALSA capture devices, read from /proc/asound (its root is configurable so tests use fixture trees):
 * `pcm` lists every PCM device as `CC-DD: id : name : playback N : capture N`, `cards` names the cards.
 * Parsing is pure; only readAudioDevices touches the file system.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface AudioDevice {
  /** Usable as `audio.device`: `hw:C,D`, or `hw:C,D,S` when the PCM has several capture subdevices. */
  device: string;
  name: string;
  card_name: string;
  card: number;
  subdevice: number;
}

export interface PcmEntry {
  card: number;
  device: number;
  id: string;
  name: string;
  playback: number;
  capture: number;
}

const PCM_LINE = /^(\d+)-(\d+):\s?(.*)$/;

/** Parses /proc/asound/pcm. Lines it cannot read are skipped. */
export function parsePcm(text: string): PcmEntry[] {
  const out: PcmEntry[] = [];
  for (const line of text.split('\n')) {
    const m = PCM_LINE.exec(line.trimEnd());
    if (!m) continue;
    const parts = m[3].split(' : ');
    let playback = 0;
    let capture = 0;
    // The stream counts come last; id and name are what precedes them (a name may itself contain " : ").
    while (parts.length > 2) {
      const s = /^(playback|capture) (\d+)$/.exec(parts[parts.length - 1].trim());
      if (!s) break;
      if (s[1] === 'playback') playback = Number(s[2]);
      else capture = Number(s[2]);
      parts.pop();
    }
    if (parts.length < 2) continue;
    out.push({ card: Number(m[1]), device: Number(m[2]), id: parts[0].trim(), name: parts.slice(1).join(' : ').trim(), playback, capture });
  }
  return out;
}

/** Parses /proc/asound/cards into index → card name (` 1 [Id ]: Driver - Name`, then a long-name line). */
export function parseCards(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+\[([^\]]*)\]:\s*(.*)$/.exec(line);
    if (!m) continue;
    const rest = m[3];
    const sep = rest.indexOf(' - ');
    const name = (sep >= 0 ? rest.slice(sep + 3) : rest).trim() || m[2].trim();
    out.set(Number(m[1]), name);
  }
  return out;
}

/** Capture devices, one per capture subdevice, ordered by card, device and subdevice. */
export function captureDevices(pcm: PcmEntry[], cards: Map<number, string>): AudioDevice[] {
  const out: AudioDevice[] = [];
  for (const p of [...pcm].sort((a, b) => a.card - b.card || a.device - b.device)) {
    for (let s = 0; s < p.capture; s++) {
      out.push({
        device: p.capture === 1 ? `hw:${p.card},${p.device}` : `hw:${p.card},${p.device},${s}`,
        name: p.name,
        card_name: cards.get(p.card) ?? p.id,
        card: p.card,
        subdevice: s,
      });
    }
  }
  return out;
}

function readOptional(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    // No sound support at all (containers, this build machine) is an empty list, not an error.
    if (['ENOENT', 'ENOTDIR', 'EACCES'].includes((err as NodeJS.ErrnoException).code ?? '')) return '';
    throw err;
  }
}

export function readAudioDevices(root: string): AudioDevice[] {
  return captureDevices(parsePcm(readOptional(join(root, 'pcm'))), parseCards(readOptional(join(root, 'cards'))));
}
