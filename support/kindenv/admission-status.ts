/** What a client sees when a webhook denies, and the wait for cainjector: shared by the cluster scenarios. */
import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import type { KindEnv } from './kindenv.ts';
import { waitFor } from './processes.ts';

export interface ClientStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  code: number;
  reason?: string;
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes?: { reason?: string; message?: string; field?: string }[] };
}

/** The API server's error body (a metav1.Status) from a client-node ApiException. */
export async function rejection(promise: Promise<unknown>): Promise<ClientStatus> {
  try {
    await promise;
  } catch (error) {
    const body = (error as { body?: unknown }).body;
    return typeof body === 'string' ? JSON.parse(body) : (body as never);
  }
  throw new Error('expected the API server to reject the request');
}

/** The whole Status a client receives when a webhook denies: the API server prefixes the webhook's message and keeps the rest. */
export function deniedBy(webhook: string, status: Omit<ClientStatus, 'kind' | 'apiVersion' | 'metadata' | 'status'>): ClientStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...status, message: `admission webhook "${webhook}" denied the request: ${status.message}` };
}

/** cainjector must have filled every webhook's caBundle before the API server can verify the server. */
export async function waitForInjectedCA(env: KindEnv, name: string): Promise<void> {
  const registration = env.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  await waitFor(
    'cainjector to inject the CA into both webhook configurations',
    async () => {
      const [mutating, validating] = await Promise.all([registration.readMutatingWebhookConfiguration({ name }), registration.readValidatingWebhookConfiguration({ name })]);
      return [...mutating.webhooks!, ...validating.webhooks!].every((w) => w.clientConfig.caBundle) ? true : undefined;
    },
    120_000,
    500,
  );
}
