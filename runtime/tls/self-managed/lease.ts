/**
 * One issuer among the replicas: a coordination.k8s.io/v1 Lease, held by the
 * replica that renews it; another takes it over once it has not been renewed
 * for its duration. Conflicting writes (409) mean another replica won.
 */
import type { ApiConnection } from '../../kube/api-connection.js';

const IDLE_TIMEOUT_MS = 10_000;

interface LeaseObject {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number };
}

export interface LeaseOptions {
  readonly api: ApiConnection;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly durationSeconds: number;
}

/** Kubernetes' MicroTime: RFC 3339 with microseconds. */
function microTime(now: number): string {
  return new Date(now).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class IssuerLease {
  constructor(private readonly options: LeaseOptions) {}

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.options.namespace}/leases`;
  }

  /** Takes or renews the Lease; whether this replica holds it now. */
  async acquire(now = Date.now()): Promise<boolean> {
    const { api, namespace, name, identity, durationSeconds } = this.options;
    const got = await api.json('GET', `${this.path}/${name}`, { idleTimeoutMs: IDLE_TIMEOUT_MS });
    if (got.status === 404) {
      const lease: LeaseObject = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
      };
      const created = await api.json('POST', this.path, { body: lease, idleTimeoutMs: IDLE_TIMEOUT_MS });
      if (created.status === 409) return false;
      return expectOk(created, `create Lease ${namespace}/${name}`);
    }
    expectOk(got, `read Lease ${namespace}/${name}`);
    const lease = got.body as LeaseObject;
    const holder = lease.spec.holderIdentity ?? '';
    const renewed = Date.parse(lease.spec.renewTime ?? '') || 0;
    const expired = now > renewed + (lease.spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (holder !== identity && holder !== '' && !expired) return false;
    const taking = holder !== identity;
    const spec = {
      ...lease.spec,
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: microTime(now),
      ...(taking ? { acquireTime: microTime(now), leaseTransitions: (lease.spec.leaseTransitions ?? 0) + 1 } : {}),
    };
    const updated = await api.json('PUT', `${this.path}/${name}`, { body: { ...lease, spec }, idleTimeoutMs: IDLE_TIMEOUT_MS });
    if (updated.status === 409) return false;
    return expectOk(updated, `renew Lease ${namespace}/${name}`);
  }
}

/** true for a 2xx answer; otherwise throws with the API server's message. */
export function expectOk(response: { status: number; body: unknown }, what: string): true {
  if (response.status >= 200 && response.status < 300) return true;
  const message = (response.body as { message?: string } | undefined)?.message ?? JSON.stringify(response.body);
  throw new Error(`cannot ${what}: ${response.status} ${message}`);
}
