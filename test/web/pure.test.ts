/** The pure parts of the web UI server, proxy and explorer, against golden values. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explorerWanted } from '../../core/explorer/explorer-switch';
import { hostAllowed } from '../../core/explorer/explorer-server';
import { apiAddress, backwardHeaders, forwardHeaders } from '../../core/web/proxy';
import { contentType, resolveStaticPath } from '../../core/web/static-files';
import { apiPathOf } from '../../core/web/web-server';

const root = '/srv/web';

describe('resolveStaticPath', () => {
  it('maps paths under the root', () => {
    expect(resolveStaticPath(root, '/')).toBe(join(root, 'index.html'));
    expect(resolveStaticPath(root, '/js/main.js?v=2')).toBe(join(root, 'js/main.js'));
    expect(resolveStaticPath(root, '/a%20b.css')).toBe(join(root, 'a b.css'));
  });
  it('refuses traversal, dotfiles, backslashes, NULs and bad escapes', () => {
    for (const p of ['/../x', '/%2e%2e/x', '/js/%2E%2E/x', '/..%2fx', '/a/./b', '/.git/config', '/a\\..\\b', '/a%5c..%5cb', '/x%00.js', '/%zz', '//etc/passwd', '/js/', 'index.html']) {
      expect(resolveStaticPath(root, p), p).toBeNull();
    }
  });
  it('knows the content types the SPA uses', () => {
    expect(contentType('a.js')).toBe('text/javascript; charset=utf-8');
    expect(contentType('a.CSS')).toBe('text/css; charset=utf-8');
    expect(contentType('a.svg')).toBe('image/svg+xml');
    expect(contentType('a.bin')).toBe('application/octet-stream');
  });
});

describe('proxy headers', () => {
  it('replaces forwarding headers, drops hop-by-hop ones, keeps the rest', () => {
    const out = forwardHeaders({
      host: 'appliance:8443', connection: 'keep-alive, x-secret-hop', 'x-secret-hop': '1', 'keep-alive': 'timeout=5',
      'x-forwarded-for': '6.6.6.6', forwarded: 'for=6.6.6.6', 'x-real-ip': '6.6.6.6', authorization: 'Bearer t', 'content-type': 'application/json', te: 'trailers',
    }, { address: '192.0.2.7', host: 'appliance:8443', proto: 'https' }, '127.0.0.1:3539');
    expect(out).toEqual({
      host: '127.0.0.1:3539', authorization: 'Bearer t', 'content-type': 'application/json',
      'x-forwarded-for': '192.0.2.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'appliance:8443',
    });
  });
  it('passes repeated response headers and drops hop-by-hop ones', () => {
    expect(backwardHeaders(['Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'Connection', 'keep-alive', 'Transfer-Encoding', 'chunked', 'Content-Type', 'text/event-stream'], { connection: 'keep-alive' }))
      .toEqual(['Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'Content-Type', 'text/event-stream']);
  });
  it('reaches the API over loopback unless it listens on one address', () => {
    expect(apiAddress('0.0.0.0')).toBe('127.0.0.1');
    expect(apiAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(apiAddress('::')).toBe('::1');
    expect(apiAddress('192.0.2.10')).toBe('192.0.2.10');
  });
  it('maps /api to /svc and nothing else', () => {
    expect(apiPathOf('/api/health')).toBe('/svc/health');
    expect(apiPathOf('/api?x=1')).toBe('/svc?x=1');
    expect(apiPathOf('/api')).toBe('/svc');
    expect(apiPathOf('/apis/x')).toBeNull();
    expect(apiPathOf('/index.html')).toBeNull();
  });
});

describe('explorer rules', () => {
  it('runs only with a port and the setting', () => {
    expect(explorerWanted(38081, true)).toBe(true);
    expect(explorerWanted(38081, false)).toBe(false);
    expect(explorerWanted(0, true)).toBe(false);
  });
  it('forwards API calls only for Host headers a rebinding page cannot produce', () => {
    const own = ['encoder-7', 'encoder-7.local'];
    for (const h of ['127.0.0.1:38081', '192.0.2.4', '[::1]:38081', 'localhost:38081', 'Encoder-7:38081', 'encoder-7.local']) expect(hostAllowed(h, own), h).toBe(true);
    for (const h of [undefined, '', 'evil.example:38081', 'encoder-7.evil.example', '127.0.0.1.evil.example', 'a b']) expect(hostAllowed(h, own), String(h)).toBe(false);
  });
});
