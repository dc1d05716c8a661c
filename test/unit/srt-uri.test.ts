/**
 * The SRT URI shared by the SRT source and output (plugins/shared/srt.ts): defaults, every parameter's rule with the
 * field it names, the element properties it becomes, its claims and its secret.
 */
import { describe, expect, it } from 'vitest';
import { describeTarget, parseSrtUri, srtClaims, srtProperties, srtSecrets, srtTarget } from '../../plugins/shared/srt';

const errorsOf = (uri: string) => {
  const r = parseSrtUri(uri, 'output.uri');
  return 'errors' in r ? r.errors : [];
};

describe('parseSrtUri', () => {
  it('listens for an empty host, 0.0.0.0 or ::, calls any other host; latency 120 ms', () => {
    expect(srtTarget('srt://:9000')).toEqual({ host: '', port: 9000, mode: 'listener', latencyMs: 120 });
    expect(srtTarget('srt://0.0.0.0:9000').mode).toBe('listener');
    expect(srtTarget('srt://[::]:9000')).toMatchObject({ host: '::', mode: 'listener' });
    expect(srtTarget('srt://encoder.example:9000/')).toEqual({ host: 'encoder.example', port: 9000, mode: 'caller', latencyMs: 120 });
    expect(srtTarget('srt://127.0.0.1:9000?mode=listener').mode).toBe('listener');
  });

  it('takes every parameter once, in any order; the stream id %-decoded, the passphrase as written', () => {
    expect(srtTarget('srt://10.0.0.5:9000?streamid=%23!::r=live,m=publish&pbkeylen=24&passphrase=a"b\\c!d=e#f&latency=0&mode=rendezvous')).toEqual({
      host: '10.0.0.5', port: 9000, mode: 'rendezvous', latencyMs: 0, passphrase: 'a"b\\c!d=e#f', pbkeylen: 24, streamid: '#!::r=live,m=publish',
    });
  });

  it('refuses, naming the field: a bad form, mode, latency, passphrase, pbkeylen, stream id; unknown or repeated parameters', () => {
    const form = 'output.uri must be srt://host:port';
    expect(errorsOf('udp://1.2.3.4:9000')[0]).toContain(form);
    expect(errorsOf('srt://1.2.3.4')[0]).toContain(form);
    expect(errorsOf('srt://1.2.3.4:0')[0]).toContain(form);
    expect(errorsOf('srt://lo@1.2.3.4:9000')[0]).toContain(form);
    expect(errorsOf('srt://1.2.3.4:9000/live')[0]).toContain(form);
    expect(errorsOf('srt://1.2.3.4:9000?mode=push')).toEqual(['output.uri: mode must be caller, listener or rendezvous']);
    expect(errorsOf('srt://0.0.0.0:9000?mode=caller')).toEqual(['output.uri: a caller needs the address of its peer, not "0.0.0.0"']);
    expect(errorsOf('srt://:9000?mode=rendezvous')).toEqual(['output.uri: a rendezvous needs the address of its peer, not "(empty)"']);
    for (const latency of ['-1', '60001', '1.5', 'x', '']) {
      expect(errorsOf(`srt://:9000?latency=${latency}`), latency).toEqual(['output.uri: latency must be a whole number of milliseconds from 0 to 60000']);
    }
    const pass = 'output.uri: passphrase must be 10 to 79 characters, printable ASCII written as is (no spaces, % or &)';
    for (const p of ['123456789', 'x'.repeat(80), 'with space!', 'percent%20x', 'tab\there-x', 'ünïcödé-pass']) expect(errorsOf(`srt://:9000?passphrase=${p}`), p).toEqual([pass]);
    expect(errorsOf(`srt://:9000?passphrase=${'x'.repeat(10)}`)).toEqual([]);
    expect(errorsOf(`srt://:9000?passphrase=${'x'.repeat(79)}`)).toEqual([]);
    expect(errorsOf('srt://:9000?pbkeylen=16')).toEqual(['output.uri: pbkeylen needs a passphrase']);
    expect(errorsOf('srt://:9000?pbkeylen=20&passphrase=0123456789')).toEqual(['output.uri: pbkeylen must be 16, 24 or 32']);
    expect(errorsOf('srt://:9000?streamid=%E0%A4%A')).toEqual(['output.uri: streamid has a malformed %-escape']);
    expect(errorsOf('srt://:9000?streamid=a%00b')).toEqual(['output.uri: streamid must be at most 512 characters, none of them control characters']);
    expect(errorsOf('srt://:9000?bitrate=1&mode')).toEqual([
      'output.uri has an unknown SRT parameter "bitrate" (known: mode, latency, passphrase, pbkeylen, streamid)',
      'output.uri gives mode without a value',
    ]);
    expect(errorsOf('srt://:9000?latency=1&latency=2')).toEqual(['output.uri gives latency more than once']);
  });
});

describe('what a target becomes', () => {
  it('a listener binds localaddress/localport; a caller names its peer in uri; a rendezvous does both; never auto-reconnect', () => {
    expect(srtProperties(srtTarget('srt://:9000?passphrase=0123456789&pbkeylen=32'))).toEqual({
      mode: 'listener', localaddress: '0.0.0.0', localport: 9000, latency: 120, passphrase: '0123456789', pbkeylen: 32, streamid: undefined, 'auto-reconnect': false,
    });
    expect(srtProperties(srtTarget('srt://[::1]:9000?latency=50'))).toMatchObject({ uri: 'srt://[::1]:9000', mode: 'caller', latency: 50, 'auto-reconnect': false });
    expect(srtProperties(srtTarget('srt://10.0.0.5:9000?mode=rendezvous'))).toMatchObject({ uri: 'srt://10.0.0.5:9000', mode: 'rendezvous', localport: 9000 });
  });

  it('a listener and a rendezvous claim the port under the key RTSP and TCP listeners use; a caller claims nothing', () => {
    expect(srtClaims(srtTarget('srt://:9000'))).toEqual([{ resource: 'port', key: 'tcp:9000', label: 'port 9000 (SRT listener)' }]);
    expect(srtClaims(srtTarget('srt://10.0.0.5:9000?mode=rendezvous'))).toEqual([{ resource: 'port', key: 'tcp:9000', label: 'port 9000 (SRT rendezvous)' }]);
    expect(srtClaims(srtTarget('srt://10.0.0.5:9000'))).toEqual([]);
  });

  it('names the connection for people', () => {
    expect(describeTarget(srtTarget('srt://:9000'))).toBe('listening on port 9000');
    expect(describeTarget(srtTarget('srt://127.0.0.1:9000?mode=listener'))).toBe('listening on 127.0.0.1:9000');
    expect(describeTarget(srtTarget('srt://[::1]:9000'))).toBe('caller to [::1]:9000');
  });

  it('the secret is the passphrase as written, valid or not; *** sent back is found in its place', () => {
    expect(srtSecrets('srt://:9000?latency=1&passphrase=0123456789&pbkeylen=16')).toEqual(['0123456789']);
    expect(srtSecrets('srt://:9000?passphrase=short')).toEqual(['short']);
    expect(srtSecrets('srt://:9000?passphrase=***')).toEqual(['***']);
    expect(srtSecrets('srt://:9000?passphrase=')).toEqual([]);
    expect(srtSecrets('srt://:9000')).toEqual([]);
  });
});
