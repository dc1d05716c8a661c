/**
 * The control-plane baseline: a bare Fastify HTTPS server, one route, answering GET /svc/pipeline with the JSON
 * encoderd answered (parsed once, serialised per request as encoderd's route does). No auth, no logging, no
 * manager. Run as its own process so that it, like encoderd, does not share an event loop with the load
 * generator. Usage: node bare-fastify.mjs <cert.pem> <key.pem> <body.json>; prints the port on stdout.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Fastify = require('fastify');

const [certFile, keyFile, bodyFile] = process.argv.slice(2);
const body = JSON.parse(readFileSync(bodyFile, 'utf8'));
const app = Fastify({ https: { cert: readFileSync(certFile), key: readFileSync(keyFile) } });
app.get('/svc/pipeline', async () => body);
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
