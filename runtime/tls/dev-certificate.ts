/** A throwaway self-signed certificate for `serve --dev`, made in memory. Never for clusters. */
import { createSelfSignedServing, type KeyPair } from './issue.js';

export type DevCertificate = KeyPair;

const WEEK_MS = 7 * 24 * 3600_000;

export function createDevCertificate(hosts: readonly string[] = ['localhost', '127.0.0.1', '::1']): Promise<DevCertificate> {
  return createSelfSignedServing('shaper-gen serve --dev', hosts, new Date(Date.now() + WEEK_MS));
}
