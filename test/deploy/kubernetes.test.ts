/**
 * deploy/kubernetes against the Kubernetes API schemas, twice:
 * - kubernetes-models (and @kubernetes-models/prometheus-operator for the PodMonitor): validators generated from the
 *   Kubernetes OpenAPI JSON schemas (and the operator's CRD schemas): types, enums, required fields, formats;
 * - the same packages' TypeScript declarations, through the compiler, for what those schemas let through: a field
 *   the API does not have (a misspelt `livenesProbe` would otherwise validate and be dropped by the API server).
 * Then the rules the deployment itself depends on (docs/operations.md, "Kubernetes").
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { configSchema } from '../../core/config/schema';
import { run, startService } from '../helpers/service';

const ROOT = join(__dirname, '../..');
const DIR = join(ROOT, 'deploy/kubernetes');

interface Kind {
  model: new (data: any) => { validate(): void };
  /** Module and interface of its TypeScript declaration. */
  module: string;
  type: string;
}
const KINDS: Record<string, Kind> = {
  ConfigMap: { model: ConfigMap, module: 'kubernetes-models/v1/ConfigMap', type: 'IConfigMap' },
  Secret: { model: Secret, module: 'kubernetes-models/v1/Secret', type: 'ISecret' },
  Service: { model: Service, module: 'kubernetes-models/v1/Service', type: 'IService' },
  StatefulSet: { model: StatefulSet, module: 'kubernetes-models/apps/v1/StatefulSet', type: 'IStatefulSet' },
  PodMonitor: { model: PodMonitor, module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor', type: 'IPodMonitor' },
};

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort();
const docs = files.flatMap((file) => parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((d, i) => {
  if (d.errors.length) throw new Error(`${file} document ${i}: ${d.errors.map((e) => e.message).join('; ')}`);
  return { file, doc: d.toJS() as any };
}));
const resources = docs.filter(({ doc }) => doc.kind !== 'Kustomization');
const one = (kind: string, name?: string) => {
  const found = resources.filter(({ doc }) => doc.kind === kind && (!name || doc.metadata.name === name));
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0].doc;
};

/**
 * Type-checks each set of manifests (one virtual file per set, one compiler run for all) as object literals of their
 * kinds' declared types: excess properties are errors. Returns each set's diagnostics.
 */
function typeCheck(sets: Record<string, Array<{ doc: any }>>): Record<string, string[]> {
  const sources = new Map(Object.entries(sets).map(([name, manifests]) => [join(ROOT, `test/deploy/__${name}__.ts`),
    manifests.map(({ doc }, i) => {
      const k = KINDS[doc.kind];
      return `import type { ${k.type} as T${i} } from '${k.module}';\nexport const doc${i}: T${i} = ${JSON.stringify(doc, null, 1)};\n`;
    }).join('\n')]));
  const options: ts.CompilerOptions = { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, types: [] };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, lang, ...rest) => (sources.has(name) ? ts.createSourceFile(name, sources.get(name)!, lang) : getSourceFile(name, lang, ...rest));
  host.fileExists = (name) => sources.has(name) || fileExists(name);
  host.readFile = (name) => sources.get(name) ?? readFile(name);
  const program = ts.createProgram([...sources.keys()], options, host);
  const out: Record<string, string[]> = Object.fromEntries(Object.keys(sets).map((name) => [name, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const set = Object.keys(sets).find((name) => d.file?.fileName === join(ROOT, `test/deploy/__${name}__.ts`)) ?? 'other';
    (out[set] ??= []).push(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  }
  return out;
}

describe('deploy/kubernetes', () => {
  it('holds only kinds this test knows, and the kustomization lists every file', () => {
    for (const { file, doc } of resources) expect(Object.keys(KINDS), `${file}: ${doc.kind}`).toContain(doc.kind);
    const kustomization = docs.find(({ doc }) => doc.kind === 'Kustomization')!.doc;
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml'));
  });

  it('every manifest validates against its Kubernetes API schema', () => {
    for (const { file, doc } of resources) {
      expect(() => new KINDS[doc.kind].model(doc).validate(), `${file}: ${doc.kind} ${doc.metadata?.name}`).not.toThrow();
    }
  });

  it('the schema validation bites: a wrong type and a wrong enum are refused', () => {
    const sts = structuredClone(one('StatefulSet'));
    sts.spec.template.spec.containers[0].livenessProbe.httpGet.scheme = 'HTTPX';
    expect(() => new StatefulSet(sts).validate()).toThrow(/scheme/);
    const svc = structuredClone(one('Service', 'encoder-1'));
    svc.spec.ports[0].port = 'https';
    expect(() => new Service(svc).validate()).toThrow(/port/);
  });

  it('no manifest has a field the API does not know (and a misspelt one is caught)', () => {
    const sts = structuredClone(one('StatefulSet'));
    const c = sts.spec.template.spec.containers[0];
    c.livenesProbe = c.livenessProbe;
    delete c.livenessProbe;
    const result = typeCheck({ manifests: resources, mutated: [{ doc: sts }] });
    expect(result.manifests).toEqual([]);
    expect(result.other).toBeUndefined();
    expect(result.mutated.join('\n')).toMatch(/'"?livenesProbe"?' does not exist/);
  }, 30_000);

  it('one replica per identity, a volume for /data, HTTPS probes, a grace period that covers a clean stop', () => {
    const sts = one('StatefulSet');
    expect(sts.spec.replicas).toBe(1);
    const pod = sts.spec.template.spec;
    const c = pod.containers[0];
    const claim = sts.spec.volumeClaimTemplates[0].metadata.name;
    expect(c.volumeMounts).toContainEqual({ name: claim, mountPath: '/data' });
    expect(c.livenessProbe.httpGet).toMatchObject({ path: '/svc/healthz', scheme: 'HTTPS' });
    expect(c.startupProbe.httpGet).toMatchObject({ path: '/svc/healthz', scheme: 'HTTPS' });
    expect(c.readinessProbe.httpGet).toMatchObject({ path: '/svc/health', scheme: 'HTTPS' });
    // A command in progress (start timeout) + the EOS wait (stop timeout) + the host's 5 s reply margin + webhooks' 5 s.
    const config = one('ConfigMap').data;
    const stopMs = Number(config.ENCODERD_STOP_TIMEOUT_MS ?? configSchema.properties.stopTimeoutMs.default);
    const startMs = Number(config.ENCODERD_START_TIMEOUT_MS ?? configSchema.properties.startTimeoutMs.default);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual((startMs + stopMs + 5000 + 5000) / 1000);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001 });
    expect(sts.spec.serviceName).toBe(one('Service', sts.spec.serviceName).metadata.name);
  });

  it('configuration through ENCODERD_* names the service knows, secrets only from Secrets', () => {
    const config = one('ConfigMap').data;
    const known = new Set(Object.keys(configSchema.properties).map((k) => `ENCODERD_${k.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`));
    for (const key of Object.keys(config).filter((k) => k.startsWith('ENCODERD_'))) expect(known, key).toContain(key);
    const c = one('StatefulSet').spec.template.spec.containers[0];
    expect(c.envFrom).toContainEqual({ configMapRef: { name: one('ConfigMap').metadata.name } });
    const volumes = one('StatefulSet').spec.template.spec.volumes;
    const secretNames = volumes.filter((v: any) => v.secret).map((v: any) => v.secret.secretName).sort();
    expect(secretNames).toEqual(['encoder-1-auth', 'encoder-1-licence']);
    for (const name of secretNames) expect(one('Secret', name).type).toBe('Opaque');
    expect(config.ENCODERD_LICENCE.startsWith(c.volumeMounts.find((m: any) => m.name === 'licence').mountPath)).toBe(true);
  });

  it('the Service exposes the API, the web UI and RTSP to the container ports of the same names', () => {
    const ports = one('Service', 'encoder-1').spec.ports;
    const containerPorts = one('StatefulSet').spec.template.spec.containers[0].ports;
    expect(ports.map((p: any) => p.port).sort()).toEqual([3539, 8443, 8554]);
    for (const p of ports) expect(containerPorts.map((cp: any) => cp.name)).toContain(p.targetPort);
    const monitor = one('PodMonitor').spec.podMetricsEndpoints[0];
    expect(monitor).toMatchObject({ port: 'https', scheme: 'https', path: '/svc/metrics' });
    expect(one('Secret', monitor.authorization.credentials.name).stringData).toHaveProperty(monitor.authorization.credentials.key);
  });

  it('the postStart hook sets the first password from the Secret on a real service, and then leaves it alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'encoderd-hook-'));
    const hook = join(dir, 'set-initial-password.js');
    writeFileSync(hook, one('ConfigMap').data['set-initial-password.js']);
    writeFileSync(join(dir, 'password'), 'correct horse battery staple\n');
    const service = await startService();
    try {
      const env = { ENCODERD_PORT: String(service.port), ENCODERD_INITIAL_PASSWORD_FILE: join(dir, 'password') };
      const first = await run(process.execPath, [hook], { env });
      expect(first).toMatchObject({ code: 0, stdout: 'initial password set\n' });
      expect((await service.api('GET', '/svc/auth/status')).body).toEqual({ auth_enabled: true });
      // The Secret's value is the password (the trailing newline of a file is not part of it).
      const login = await service.api('POST', '/svc/auth/login', { password: 'correct horse battery staple' });
      expect(login.status).toBe(200);
      writeFileSync(join(dir, 'password'), 'another passphrase entirely');
      const again = await run(process.execPath, [hook], { env });
      expect(again).toMatchObject({ code: 0, stdout: 'a password is set already\n' });
      expect((await service.api('POST', '/svc/auth/login', { password: 'correct horse battery staple' })).status).toBe(200);
    } finally {
      await service.stop();
    }
  });
});
