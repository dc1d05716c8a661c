/**
 * A bare RTSP client for tests that need the order of requests in their own hands (rtspsrc and ffmpeg decide it
 * themselves): requests are written as asked, without waiting for earlier answers, and what arrives is counted,
 * RTP per interleaved channel over TCP, datagrams per stream over UDP.
 */
import { createSocket, type Socket as Dgram } from 'node:dgram';
import { Socket } from 'node:net';

export interface RtspReply { status: number; headers: Record<string, string>; body: string }

export class RtspClient {
  private readonly sock = new Socket();
  private buf = Buffer.alloc(0);
  private cseq = 0;
  private readonly waiting = new Map<number, (r: RtspReply) => void>();
  private readonly udp: Dgram[] = [];
  private readonly ports = new Map<number, number>();
  session = '';
  /** RTP packets received per interleaved channel (TCP) or per stream (UDP). */
  readonly packets = new Map<number, number>();

  private constructor(readonly url: string) {
    this.sock.on('data', (d) => this.read(d));
    this.sock.on('error', () => undefined);
  }

  static async connect(url: string): Promise<RtspClient> {
    const c = new RtspClient(url);
    const u = new URL(url);
    await new Promise<void>((resolve, reject) => {
      c.sock.once('error', reject);
      c.sock.connect(Number(u.port), u.hostname, () => resolve());
    });
    return c;
  }

  /** Writes a request at once; the promise is its reply. */
  send(method: string, url: string, headers: Record<string, string> = {}): Promise<RtspReply> {
    const cseq = ++this.cseq;
    const all = { CSeq: String(cseq), ...(this.session ? { Session: this.session } : {}), ...headers };
    this.sock.write(`${method} ${url} RTSP/1.0\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
    return new Promise((resolve) => this.waiting.set(cseq, (r) => {
      if (r.headers.session) this.session = r.headers.session.split(';')[0];
      resolve(r);
    }));
  }

  /** SETUP of stream i over TCP, interleaved channels 2i and 2i+1. */
  setupTcp(i: number): Promise<RtspReply> {
    return this.send('SETUP', `${this.url}/stream=${i}`, { Transport: `RTP/AVP/TCP;unicast;interleaved=${2 * i}-${2 * i + 1}` });
  }

  /** Binds two sockets for stream i over UDP, ahead of its SETUP; RTP datagrams are counted as packets of i. */
  async openUdp(i: number): Promise<void> {
    const rtp = await this.bind(0, () => this.packets.set(i, (this.packets.get(i) ?? 0) + 1));
    const port = rtp.address().port;
    await this.bind(port + 1, () => undefined).catch(() => undefined); // RTCP; any port will do if that one is taken
    this.ports.set(i, port);
  }

  /** SETUP of stream i over UDP to the sockets openUdp bound, written at once. */
  setupUdp(i: number): Promise<RtspReply> {
    const port = this.ports.get(i);
    if (port === undefined) throw new Error(`openUdp(${i}) first`);
    return this.send('SETUP', `${this.url}/stream=${i}`, { Transport: `RTP/AVP;unicast;client_port=${port}-${port + 1}` });
  }

  close(): void {
    this.sock.destroy();
    for (const s of this.udp) s.close();
  }

  private bind(port: number, onMessage: () => void): Promise<Dgram> {
    const s = createSocket('udp4');
    s.on('message', onMessage);
    return new Promise((resolve, reject) => {
      s.once('error', reject);
      s.bind(port, '127.0.0.1', () => {
        this.udp.push(s);
        resolve(s);
      });
    });
  }

  private read(d: Buffer): void {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      if (this.buf.length >= 4 && this.buf[0] === 0x24) { // '$': an interleaved frame
        const len = this.buf.readUInt16BE(2);
        if (this.buf.length < 4 + len) return;
        const ch = this.buf[1];
        this.packets.set(ch, (this.packets.get(ch) ?? 0) + 1);
        this.buf = this.buf.subarray(4 + len);
        continue;
      }
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = this.buf.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const at = l.indexOf(':');
        if (at > 0) headers[l.slice(0, at).trim().toLowerCase()] = l.slice(at + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (this.buf.length < end + 4 + length) return;
      const body = this.buf.subarray(end + 4, end + 4 + length).toString('latin1');
      this.buf = this.buf.subarray(end + 4 + length);
      const reply = { status: Number(lines[0].split(' ')[1]), headers, body };
      this.waiting.get(Number(headers.cseq))?.(reply);
      this.waiting.delete(Number(headers.cseq));
    }
  }
}
