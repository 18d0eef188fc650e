/**
 * Continuous admission traffic through the API server, bounded in calls and
 * time: creates a custom object, then updates its labels, again and again,
 * so every call passes the mutating and validating webhooks. Each failure is
 * kept with the status the client saw.
 */
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

export interface TrafficOptions {
  group: string;
  version: string;
  namespace: string;
  plural: string;
  /** Object names are `<prefix>-<n>`. */
  prefix: string;
  maxCalls: number;
  maxSeconds: number;
}

export interface TrafficResult {
  calls: number;
  failures: string[];
}

export function admissionTraffic(objects: CustomObjectsApi, options: TrafficOptions) {
  const { group, version, namespace, plural, prefix } = options;
  const deadline = Date.now() + options.maxSeconds * 1000;
  const failures: string[] = [];
  let calls = 0;
  let running = true as boolean; // stop() below ends it
  const kind = plural === 'profiles' ? 'Profile' : plural;
  const call = async (what: string, request: () => Promise<unknown>) => {
    calls++;
    await request().catch((error: { code?: number; body?: unknown; message?: string }) => {
      const body = typeof error.body === 'string' ? error.body : JSON.stringify(error.body ?? '');
      failures.push(`${new Date().toISOString()} ${what}: ${error.code ?? ''} ${body || error.message}`);
    });
  };
  const loop = (async () => {
    for (let n = 1; running && calls < options.maxCalls && Date.now() < deadline; n++) {
      const name = `${prefix}-${n}`;
      await call(`create ${name}`, () =>
        objects.createNamespacedCustomObject({ group, version, namespace, plural, body: { apiVersion: `${group}/${version}`, kind, metadata: { name, namespace }, spec: {} } }),
      );
      await call(`update ${name}`, () =>
        objects.patchNamespacedCustomObject(
          { group, version, namespace, plural, name, body: { metadata: { labels: { 'traffic.shaper.io/round': String(n) } } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      );
    }
  })();
  return {
    /** Resolves once a few calls went through (the traffic is flowing before the disruption starts). */
    async warmUp(): Promise<void> {
      while (calls < 6 && running && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    },
    async stop(): Promise<TrafficResult> {
      running = false;
      await loop;
      return { calls, failures };
    },
  };
}
