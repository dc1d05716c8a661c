/** What a received MPEG-TS stream spends on each picture, for tests of a live bitrate change. */

/** Bytes of MPEG-TS a picture over a window: its datagrams' bytes over the PES starts (payload_unit_start) on the
 * busiest PID, the video's. Unlike bits a second, it does not fall when a loaded machine starves the encoder of
 * frames: the rate control spends the new budget on whatever pictures it gets. */
export function bytesPerPicture(packets: Array<{ at: number; data: Buffer }>, from: number, to: number): number {
  const counts = new Map<number, { bytes: number; starts: number }>();
  for (const p of packets.filter((q) => q.at >= from && q.at < to)) {
    for (let o = 0; o + 188 <= p.data.length; o += 188) {
      const pid = ((p.data[o + 1] & 0x1f) << 8) | p.data[o + 2];
      const c = counts.get(pid) ?? { bytes: 0, starts: 0 };
      c.bytes += 188;
      if (p.data[o + 1] & 0x40) c.starts += 1;
      counts.set(pid, c);
    }
  }
  const video = [...counts.values()].sort((a, b) => b.bytes - a.bytes)[0];
  return video && video.starts ? video.bytes / video.starts : 0;
}
