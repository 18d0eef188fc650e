/**
 * Where the API server reads the CA bundle from: every webhook of the release's
 * Validating- and MutatingWebhookConfigurations, and the conversion webhook of
 * its CRDs. Objects that do not exist are skipped (a chart without mutating
 * webhooks renders no MutatingWebhookConfiguration).
 */
import type { ApiConnection } from '../../kube/api-connection.js';
import { expectOk } from './lease.js';

const IDLE_TIMEOUT_MS = 10_000;

interface ClientConfig {
  caBundle?: string;
}
interface WebhookConfiguration {
  metadata: { resourceVersion?: string };
  webhooks?: { clientConfig: ClientConfig }[];
}
interface Crd {
  metadata: { resourceVersion?: string };
  spec: { conversion?: { strategy?: string; webhook?: { clientConfig?: ClientConfig } } };
}

export interface CaBundleTargets {
  readonly webhookConfigurations: readonly string[];
  readonly conversionCrds: readonly string[];
}

interface Target {
  readonly path: string;
  readonly clientConfigs: (object: unknown) => ClientConfig[];
}

function targets({ webhookConfigurations, conversionCrds }: CaBundleTargets): Target[] {
  const webhooks = (object: unknown) => ((object as WebhookConfiguration).webhooks ?? []).map((webhook) => webhook.clientConfig);
  const conversion = (object: unknown) => {
    const spec = (object as Crd).spec.conversion;
    return spec?.strategy === 'Webhook' && spec.webhook?.clientConfig ? [spec.webhook.clientConfig] : [];
  };
  return [
    ...webhookConfigurations.flatMap((name) => [
      { path: `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`, clientConfigs: webhooks },
      { path: `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${name}`, clientConfigs: webhooks },
    ]),
    ...conversionCrds.map((name) => ({ path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, clientConfigs: conversion })),
  ];
}

/** The bundle the first existing target holds now (base64 decoded), '' when none has one. */
export async function currentCaBundle(api: ApiConnection, wanted: CaBundleTargets): Promise<string> {
  for (const target of targets(wanted)) {
    const got = await api.json('GET', target.path, { idleTimeoutMs: IDLE_TIMEOUT_MS });
    if (got.status === 404) continue;
    expectOk(got, `read ${target.path}`);
    const bundle = target.clientConfigs(got.body).find((config) => config.caBundle)?.caBundle;
    if (bundle) return Buffer.from(bundle, 'base64').toString('utf8');
  }
  return '';
}

/** Writes `bundle` (PEM) into every target that exists; returns the paths written. Retries a target that changed meanwhile. */
export async function publishCaBundle(api: ApiConnection, wanted: CaBundleTargets, bundle: string): Promise<string[]> {
  const encoded = Buffer.from(bundle).toString('base64');
  const written: string[] = [];
  for (const target of targets(wanted)) {
    for (let attempt = 0; ; attempt++) {
      const got = await api.json('GET', target.path, { idleTimeoutMs: IDLE_TIMEOUT_MS });
      if (got.status === 404) break;
      expectOk(got, `read ${target.path}`);
      const configs = target.clientConfigs(got.body);
      if (configs.every((config) => config.caBundle === encoded)) break;
      for (const config of configs) config.caBundle = encoded;
      const put = await api.json('PUT', target.path, { body: got.body, idleTimeoutMs: IDLE_TIMEOUT_MS });
      if (put.status === 409 && attempt < 5) continue;
      expectOk(put, `write the CA bundle into ${target.path}`);
      written.push(target.path);
      break;
    }
  }
  return written;
}
