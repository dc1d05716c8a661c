/**
 * The matrix's UDP sources: one live gst-launch sender per codec sends MPEG-TS to a relay, which sends every
 * datagram on to the ports of the cases reading that source while they run (two sockets on one unicast port do not
 * both get every datagram). The relay is a Node process of its own, not a socket in the test's worker: that worker
 * parses a dozen receivers' logs at once, and a stall of its event loop held the datagrams back for a second under
 * a full suite, so a case's video arrived a second behind its audio (ffmpeg's RTSP demuxer over UDP then re-bases
 * the video backwards at the first RTCP report: "non monotonically increasing dts", docs/dataplane.md). A network
 * source does not stall with the test, so neither does this one. Commands on stdin: `add <port>`, `del <port>`.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const RELAY = `
const sock = require('node:dgram').createSocket('udp4');
const ports = new Set();
sock.on('message', (d) => { for (const p of ports) sock.send(d, p, '127.0.0.1'); });
sock.bind(0, '127.0.0.1', () => console.log(sock.address().port));
require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
  const [op, p] = l.split(' ');
  if (op === 'add') ports.add(Number(p)); else ports.delete(Number(p));
});
process.stdin.on('end', () => process.exit(0));
`;

export interface UdpFanout {
  /** Where the sender sends. */
  port: number;
  add(port: number): void;
  remove(port: number): void;
  close(): void;
}

export async function startFanout(): Promise<UdpFanout> {
  const child = spawn(process.execPath, ['-e', RELAY], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the UDP relay exited with ${code} before it bound`)));
    createInterface({ input: child.stdout! }).once('line', (l) => resolve(Number(l)));
  });
  const send = (line: string) => { if (child.exitCode === null) child.stdin!.write(`${line}\n`); };
  return {
    port,
    add: (p) => send(`add ${p}`),
    remove: (p) => send(`del ${p}`),
    close: () => { child.stdin!.end(); child.kill('SIGKILL'); },
  };
}
