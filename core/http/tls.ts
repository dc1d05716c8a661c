/**
 * The API's certificate: a configured one, or a self-signed one generated into the data dir on first start
 * and reused after (clients pin it). The key is written 0600.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function loadOrCreateTls(dataDir: string, cert: string | null, key: string | null): { cert: Buffer; key: Buffer } {
  if (cert && key) return { cert: readFileSync(cert), key: readFileSync(key) };
  const dir = join(dataDir, 'tls');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '3650',
      '-subj', '/CN=encoderd', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
      '-keyout', keyFile, '-out', certFile,
    ], { stdio: 'ignore' });
    chmodSync(keyFile, 0o600);
  }
  return { cert: readFileSync(certFile), key: readFileSync(keyFile) };
}
