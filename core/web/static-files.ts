/**
 * The web UI's files: a request path maps to a file under one root, or to nothing. Pure mapping first (tested
 * on its own), then a small sender. No directory listings, no dotfiles, no way out of the root: a path whose
 * decoded segments contain `..`, `.`-files, a backslash or a NUL is refused before the file system is asked.
 */
import { createReadStream, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { projectRoot as projectRootDir } from '../paths';

export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentType(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Pure: the absolute file a request path names under root, or null when the path is refused. `/` is
 * index.html. The query string is ignored.
 */
export function resolveStaticPath(root: string, rawUrl: string): string | null {
  const rawPath = rawUrl.split('?')[0].split('#')[0];
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  if (!path.startsWith('/') || path.includes('\0') || path.includes('\\')) return null;
  if (path === '/') path = '/index.html';
  const segments = path.slice(1).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.'))) return null;
  const base = resolve(root);
  const file = resolve(join(base, ...segments));
  return file.startsWith(base + sep) ? file : null;
}

/** Security headers of every page the web UI serves (the API's answers pass through as the API made them). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  // Everything the SPA needs is its own origin: scripts are modules from files, no inline code, no eval.
  // blob: for pictures and media only: thumbnails are fetched with the token and shown as object URLs, and the
  // preview player feeds the <video> through Media Source Extensions (a blob: URL). Scripts stay 'self'.
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  // Small files, changed by upgrades: always revalidate rather than run a stale UI against a new API.
  'cache-control': 'no-cache',
};

/**
 * Files from npm packages the SPA uses, each named one by one (never a folder of node_modules): request path →
 * path under the project root. The SPA owns the list (web/vendor.json; docs/web.md, "Preview"), so the core names
 * no player of its own.
 */
export const VENDOR_FILES: Readonly<Record<string, string>> = Object.freeze(
  JSON.parse(readFileSync(join(projectRootDir, 'web/vendor.json'), 'utf8')) as Record<string, string>,
);

/** Pure: the vendor file a request path names under projectRoot, or null. The query string is ignored. */
export function resolveVendorPath(projectRoot: string, rawUrl: string): string | null {
  const path = rawUrl.split('?')[0].split('#')[0];
  return Object.hasOwn(VENDOR_FILES, path) ? join(resolve(projectRoot), VENDOR_FILES[path]) : null;
}

/** Answers a GET or HEAD for a static file; false when there is no such file (the caller answers 404). */
export function sendStatic(root: string, req: IncomingMessage, res: ServerResponse, headers: Readonly<Record<string, string>> = PAGE_HEADERS): boolean {
  const file = resolveStaticPath(root, req.url ?? '/');
  if (!file) return false;
  return sendFile(file, req, res, headers);
}

/** Answers a GET or HEAD with one file; false when it is not there. */
export function sendFile(file: string, req: IncomingMessage, res: ServerResponse, headers: Readonly<Record<string, string>> = PAGE_HEADERS): boolean {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) return false;
    size = st.size;
  } catch {
    return false;
  }
  res.writeHead(200, { ...headers, 'content-type': contentType(file), 'content-length': String(size) });
  if (req.method === 'HEAD') {
    res.end();
    return true;
  }
  const stream = createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
  return true;
}

/** A small JSON answer in the API's error shape, for what the web server itself refuses. */
export function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ message, code });
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), ...PAGE_HEADERS });
  res.end(body);
}
