/**
 * The shaper-webhooks chart rendered by the real (pinned) helm, with default
 * values and with every optional feature on; objects parsed and checked.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG, parseServerConfig } from '../../../runtime/config/server-config.js';
import { CIPHER_SUITE_NAMES } from '../../../runtime/tls/cipher-suites.js';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { findObject, helmLint, helmTemplate, type K8sObject } from '../../support/helm.js';

/** Every server container runs with glibc's mmap threshold fixed (deployment.yaml says why). */
const FIXED_MMAP_THRESHOLD = { name: 'MALLOC_MMAP_THRESHOLD_', value: '131072' };

const CHART = path.join(REPO_ROOT, 'charts/shaper-webhooks');
const release = { release: 'shaper', namespace: 'shaper-system' };
const FULLNAME = 'shaper-shaper-webhooks';
const ALL_ON = {
  networkPolicy: {
    enabled: true,
    webhookFromCIDRs: ['10.0.0.0/24'],
    metricsNamespaceSelector: { matchLabels: { name: 'monitoring' } },
    metricsPodSelector: { matchLabels: { app: 'prometheus' } },
  },
  serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus' } },
  'certManager.issuerRef': { name: 'corp-ca', kind: 'ClusterIssuer' },
  serviceAccount: { create: true, name: 'webhooks-sa' },
  rbac: { create: true, extraRules: [{ apiGroups: ['shaper.io'], resources: ['assignments'], verbs: ['list'] }] },
  priorityClassName: 'system-cluster-critical',
};

const deploymentOf = (objects: K8sObject[]) => findObject(objects, 'Deployment', FULLNAME);
const configOf = (objects: K8sObject[]) => parseServerConfig(findObject(objects, 'ConfigMap', `${FULLNAME}-config`).data['config.yaml'], 'config.yaml');

describe('shaper-webhooks chart', () => {
  it('passes helm lint --strict with defaults, with every option on, and with self-managed certificates', async () => {
    await expect(helmLint(CHART)).resolves.toContain('0 chart(s) failed');
    await expect(helmLint(CHART, { set: ALL_ON })).resolves.toContain('0 chart(s) failed');
    await expect(helmLint(CHART, { set: { 'certificates.mode': 'self-managed' } })).resolves.toContain('0 chart(s) failed');
  });

  it('renders one Deployment serving every webhook, restricted, with probes, mounts and spread', async () => {
    const objects = await helmTemplate(CHART, release);
    const deployment = deploymentOf(objects);
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    expect(deployment.spec.replicas).toBe(2);
    expect(container.args).toEqual(['serve', '--config', '/etc/shaper-gen/config.yaml']);
    expect(container.env).toEqual([FIXED_MMAP_THRESHOLD, { name: 'NODE_OPTIONS', value: '--max-semi-space-size=4 --max-old-space-size=112' }]);
    expect(container.ports).toEqual([
      { name: 'webhook', containerPort: 9443, protocol: 'TCP' },
      { name: 'health', containerPort: 8081, protocol: 'TCP' },
      { name: 'metrics', containerPort: 8080, protocol: 'TCP' },
    ]);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'health' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'health' });
    expect(container.startupProbe.httpGet).toEqual({ path: '/readyz', port: 'health' });
    // Pod Security "restricted", every field it checks.
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.volumeMounts).toEqual([
      { name: 'serving-cert', mountPath: '/tmp/k8s-webhook-server/serving-certs', readOnly: true },
      { name: 'config', mountPath: '/etc/shaper-gen', readOnly: true },
      { name: 'tmp', mountPath: '/tmp' },
    ]);
    expect(pod.volumes[0]).toEqual({ name: 'serving-cert', secret: { secretName: `${FULLNAME}-serving-cert` } });
    expect(pod.serviceAccountName).toBe(FULLNAME);
    expect(pod.terminationGracePeriodSeconds).toBe(30);
    expect(pod.topologySpreadConstraints[0]).toMatchObject({ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: deployment.spec.selector.matchLabels } });
    expect(container.resources.limits.memory).toBe('256Mi');
  });

  it('writes a ServerConfig that shaper-gen serve accepts, with the generated paths and the same ports', async () => {
    const objects = await helmTemplate(CHART, { ...release, set: { 'server.shutdown': { drainSeconds: 3, timeoutSeconds: 10 }, 'server.log.level': 'debug' } });
    const config = configOf(objects);
    expect(config.expectedPaths).toEqual(['/convert', '/mutate-assignment', '/mutate-profile', '/validate-assignment', '/validate-profile']);
    expect(config.handlers).toEqual(['dist/sample/webhooks.generated.js']);
    expect(config.webhook).toMatchObject({ port: 9443, certDir: '/tmp/k8s-webhook-server/serving-certs', certName: 'tls.crt', keyName: 'tls.key' });
    expect(config.shutdown).toEqual({ drainSeconds: 3, timeoutSeconds: 10 });
    expect(config.log.level).toBe('debug');
    // The generated webhook configurations and CRD conversion webhooks call exactly the paths the server is told to expect.
    const called = [
      ...['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'].flatMap((kind) =>
        objects.filter((o) => o.kind === kind).flatMap((o) => o.webhooks.map((w: any) => w.clientConfig.service.path)),
      ),
      ...objects.filter((o) => o.kind === 'CustomResourceDefinition' && o.spec.conversion?.webhook).map((o) => o.spec.conversion.webhook.clientConfig.service.path),
    ];
    expect(called.sort()).toEqual(config.expectedPaths);
  });

  it('passes tlsMinVersion and cipherSuites to the ServerConfig, with the names the server accepts', async () => {
    const defaults = configOf(await helmTemplate(CHART, release)).webhook;
    const set = { 'server.tlsMinVersion': '1.3', 'server.cipherSuites': ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-ECDSA-AES256-SHA'] };
    const chosen = configOf(await helmTemplate(CHART, { ...release, set })).webhook;
    const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8'));
    expect({
      defaults: { tlsMinVersion: defaults.tlsMinVersion, cipherSuites: defaults.cipherSuites },
      chosen: { tlsMinVersion: chosen.tlsMinVersion, cipherSuites: chosen.cipherSuites },
      schemaNames: schema.properties.server.properties.cipherSuites.items.enum,
    }).toEqual({
      defaults: { tlsMinVersion: '1.2', cipherSuites: DEFAULT_SERVER_CONFIG.webhook.cipherSuites },
      chosen: { tlsMinVersion: '1.3', cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-ECDSA-AES256-SHA'] },
      schemaNames: CIPHER_SUITE_NAMES,
    });
    await expect(helmTemplate(CHART, { ...release, set: { 'server.cipherSuites': ['AES128-SHA'] } })).rejects.toThrow(/cipherSuites/);
  });

  it('runs server.workers processes, each with its share of the heap, and refuses a memory limit too small for them', async () => {
    const objects = await helmTemplate(CHART, { ...release, set: { 'server.workers': 2, 'resources.limits.memory': '512Mi' } });
    const [container] = deploymentOf(objects).spec.template.spec.containers;
    // (512 − 64 for the primary − 2 × 144) / 2
    expect([configOf(objects).workers, container.env]).toEqual([2, [FIXED_MMAP_THRESHOLD, { name: 'NODE_OPTIONS', value: '--max-semi-space-size=4 --max-old-space-size=80' }]]);
    expect(configOf(await helmTemplate(CHART, release)).workers).toBe(1);
    // server.workers 0 (the default): one per whole CPU of the limit, at least one; an explicit value wins.
    const workersFor = async (set: Record<string, unknown>) => {
      const rendered = await helmTemplate(CHART, { ...release, set: { 'resources.limits.memory': '1Gi', ...set } });
      return [configOf(rendered).workers, deploymentOf(rendered).spec.template.spec.containers[0].env];
    };
    expect(await workersFor({ 'resources.limits.cpu': '2' })).toEqual([2, [FIXED_MMAP_THRESHOLD, { name: 'NODE_OPTIONS', value: '--max-semi-space-size=4 --max-old-space-size=336' }]]);
    expect(await workersFor({ 'resources.limits.cpu': '1500m' })).toEqual([1, [FIXED_MMAP_THRESHOLD, { name: 'NODE_OPTIONS', value: '--max-semi-space-size=4 --max-old-space-size=880' }]]);
    expect(await workersFor({ 'resources.limits.cpu': '250m' })).toEqual([1, [FIXED_MMAP_THRESHOLD, { name: 'NODE_OPTIONS', value: '--max-semi-space-size=4 --max-old-space-size=880' }]]);
    expect(await workersFor({ 'resources.limits.cpu': '3', 'server.workers': 1 })).toEqual([
      1,
      [FIXED_MMAP_THRESHOLD, { name: 'NODE_OPTIONS', value: '--max-semi-space-size=4 --max-old-space-size=880' }],
    ]);
    await expect(helmTemplate(CHART, { ...release, set: { 'server.workers': 2 } })).rejects.toThrow(
      /resources.limits.memory 256Mi leaves -48 MiB of heap per worker \(2 worker\(s\), nodeMemoryReserveMiB 144 each, 64 Mi for the primary\): raise the limit/,
    );
  });

  it('rolls the pods when the server config changes', async () => {
    const checksum = async (set = {}) => deploymentOf(await helmTemplate(CHART, { ...release, set })).spec.template.metadata.annotations['checksum/config'];
    expect(await checksum()).toBe(await checksum());
    expect(await checksum({ 'server.log.level': 'debug' })).not.toBe(await checksum());
  });

  it('grants exactly get, list and watch on profiles.shaper.io (the validator reads them through its cache) to the server ServiceAccount', async () => {
    const objects = await helmTemplate(CHART, release);
    expect(findObject(objects, 'ClusterRole', `${FULLNAME}-lookups`).rules).toEqual([{ apiGroups: ['shaper.io'], resources: ['profiles'], verbs: ['get', 'list', 'watch'] }]);
    expect(findObject(objects, 'ClusterRoleBinding', `${FULLNAME}-lookups`).subjects).toEqual([{ kind: 'ServiceAccount', name: FULLNAME, namespace: 'shaper-system' }]);
    expect(objects.filter((o) => o.kind === 'Role' || o.kind === 'RoleBinding')).toEqual([]);
  });

  it('issues the serving certificate from a private CA of the release by default', async () => {
    const objects = await helmTemplate(CHART, release);
    const certificate = findObject(objects, 'Certificate', `${FULLNAME}-serving-cert`);
    expect(certificate.spec).toMatchObject({
      secretName: `${FULLNAME}-serving-cert`,
      dnsNames: [`${FULLNAME}.shaper-system.svc`, `${FULLNAME}.shaper-system.svc.cluster.local`],
      issuerRef: { name: `${FULLNAME}-ca`, kind: 'Issuer', group: 'cert-manager.io' },
      privateKey: { algorithm: 'ECDSA', rotationPolicy: 'Always' },
    });
    // self-signed Issuer -> CA Certificate -> CA Issuer: renewals of the serving certificate keep the CA the API server trusts.
    expect(findObject(objects, 'Issuer', `${FULLNAME}-selfsigned`).spec).toEqual({ selfSigned: {} });
    expect(findObject(objects, 'Certificate', `${FULLNAME}-ca`).spec).toMatchObject({
      isCA: true,
      secretName: `${FULLNAME}-ca`,
      issuerRef: { name: `${FULLNAME}-selfsigned`, kind: 'Issuer' },
    });
    expect(findObject(objects, 'Issuer', `${FULLNAME}-ca`).spec).toEqual({ ca: { secretName: `${FULLNAME}-ca` } });
    const service = findObject(objects, 'Service', FULLNAME);
    expect(service.spec.ports).toEqual([{ name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' }]);
    expect(findObject(objects, 'PodDisruptionBudget', FULLNAME).spec.minAvailable).toBe(1);
    expect(objects.some((o) => o.kind === 'NetworkPolicy' || o.kind === 'ServiceMonitor')).toBe(false);
  });

  it('with certificates.mode self-managed: no cert-manager objects or caBundle, the ServerConfig to issue with, and RBAC by name', async () => {
    const objects = await helmTemplate(CHART, { ...release, set: { 'certificates.mode': 'self-managed' } });
    expect(objects.filter((o) => ['Certificate', 'Issuer'].includes(o.kind))).toEqual([]);
    const configurations = objects.filter((o) => o.kind.endsWith('WebhookConfiguration'));
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
    expect(configurations.map((o) => o.metadata.name)).toEqual([FULLNAME, FULLNAME]);
    expect([...configurations, ...crds].filter((o) => o.metadata.annotations?.['cert-manager.io/inject-ca-from'])).toEqual([]);
    const clientConfigs = [
      ...configurations.flatMap((o) => (o.webhooks as { clientConfig: object }[]).map((w) => w.clientConfig)),
      ...crds.flatMap((o) => (o.spec.conversion?.webhook ? [o.spec.conversion.webhook.clientConfig as object] : [])),
    ];
    expect(clientConfigs.filter((config) => 'caBundle' in config)).toEqual([]);
    expect(configOf(objects).certificates).toEqual({
      mode: 'self-managed',
      namespace: 'shaper-system',
      secretName: `${FULLNAME}-certificates`,
      leaseName: `${FULLNAME}-certificate-issuer`,
      dnsNames: [`${FULLNAME}.shaper-system.svc`, `${FULLNAME}.shaper-system.svc.cluster.local`],
      serviceName: FULLNAME,
      webhookConfigurations: [FULLNAME],
      conversionCrds: ['profiles.shaper.io'],
      caValiditySeconds: 87600 * 3600,
      servingValiditySeconds: 2160 * 3600,
      checkSeconds: 10,
    });
    const pod = deploymentOf(objects).spec.template.spec;
    expect(pod.containers[0].env).toEqual([
      FIXED_MMAP_THRESHOLD,
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'NODE_OPTIONS', value: '--max-semi-space-size=4 --max-old-space-size=112' },
    ]);
    expect(pod.volumes.map((volume: { name: string }) => volume.name)).toEqual(['config', 'tmp']);
    expect(findObject(objects, 'Role', `${FULLNAME}-certificates`).rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [`${FULLNAME}-certificate-issuer`], verbs: ['get', 'update'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
      { apiGroups: [''], resources: ['secrets'], resourceNames: [`${FULLNAME}-certificates`], verbs: ['get', 'update', 'patch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
    ]);
    expect(findObject(objects, 'ClusterRole', `${FULLNAME}-certificates`).rules).toEqual([
      { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'], resourceNames: [FULLNAME], verbs: ['get', 'update'] },
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], resourceNames: ['profiles.shaper.io'], verbs: ['get', 'update'] },
    ]);
    for (const kind of ['RoleBinding', 'ClusterRoleBinding']) {
      expect(findObject(objects, kind, `${FULLNAME}-certificates`).subjects).toEqual([{ kind: 'ServiceAccount', name: FULLNAME, namespace: 'shaper-system' }]);
    }
    // Without the CRDs, no CRD permission; without rbac.create, no RBAC at all.
    const withoutCrds = await helmTemplate(CHART, { ...release, set: { 'certificates.mode': 'self-managed', 'crds.install': false } });
    expect(findObject(withoutCrds, 'ClusterRole', `${FULLNAME}-certificates`).rules).toHaveLength(1);
    expect(configOf(withoutCrds).certificates.conversionCrds).toEqual([]);
    const withoutRbac = await helmTemplate(CHART, { ...release, set: { 'certificates.mode': 'self-managed', 'rbac.create': false } });
    expect(withoutRbac.filter((o) => o.kind.startsWith('Role') || o.kind.startsWith('ClusterRole'))).toEqual([]);
    // In the default mode, none of it.
    const defaults = await helmTemplate(CHART, release);
    expect(defaults.filter((o) => o.metadata.name === `${FULLNAME}-certificates`)).toEqual([]);
    expect(configOf(defaults).certificates.mode).toBe('files');
  });

  it('with every option on: existing ClusterIssuer, NetworkPolicy by port, ServiceMonitor, custom ServiceAccount and rules', async () => {
    const objects = await helmTemplate(CHART, { ...release, set: ALL_ON });
    expect(objects.some((o) => o.kind === 'Issuer')).toBe(false);
    expect(objects.filter((o) => o.kind === 'Certificate').map((o) => o.metadata.name)).toEqual([`${FULLNAME}-serving-cert`]);
    expect(findObject(objects, 'Certificate', `${FULLNAME}-serving-cert`).spec.issuerRef).toEqual({ name: 'corp-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' });
    const policy = findObject(objects, 'NetworkPolicy', FULLNAME);
    expect(policy.spec.ingress[0]).toEqual({ ports: [{ port: 'webhook', protocol: 'TCP' }], from: [{ ipBlock: { cidr: '10.0.0.0/24' } }] });
    expect(policy.spec.ingress[1].ports).toEqual([{ port: 'metrics', protocol: 'TCP' }]);
    expect(policy.spec.ingress.flatMap((rule: any) => rule.ports.map((p: any) => p.port))).not.toContain('health');
    const monitor = findObject(objects, 'ServiceMonitor', FULLNAME);
    expect(monitor.metadata.labels?.release).toBe('kube-prometheus');
    expect(monitor.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', scheme: 'http', interval: '30s' }]);
    expect(findObject(objects, 'Service', `${FULLNAME}-metrics`).metadata.labels?.['app.kubernetes.io/component']).toBe('metrics');
    expect(deploymentOf(objects).spec.template.spec.serviceAccountName).toBe('webhooks-sa');
    expect(deploymentOf(objects).spec.template.spec.priorityClassName).toBe('system-cluster-critical');
    expect(findObject(objects, 'ClusterRole', `${FULLNAME}-lookups`).rules).toEqual([
      { apiGroups: ['shaper.io'], resources: ['profiles'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['shaper.io'], resources: ['assignments'], verbs: ['list'] },
    ]);
  });

  it('rejects values the schema does not know or of the wrong type, and a grace period shorter than the drain', async () => {
    await expect(helmTemplate(CHART, { ...release, set: { replicas: 3 } })).rejects.toThrow(/additional properties 'replicas' not allowed/);
    await expect(helmTemplate(CHART, { ...release, set: { replicaCount: 'two' } })).rejects.toThrow(/replicaCount/);
    await expect(helmTemplate(CHART, { ...release, set: { terminationGracePeriodSeconds: 25 } })).rejects.toThrow(/must exceed server.shutdown.drainSeconds \+ timeoutSeconds \(25\)/);
  });
});
