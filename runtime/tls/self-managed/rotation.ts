/**
 * The rotation of self-managed certificates as a pure decision: from what the
 * Secret holds, what the API server was last given, what the replicas serve and
 * the time, the one next step the issuer takes. The order keeps every call
 * trusted:
 *
 * 1. A new CA joins the bundle beside the old one (`add-ca`), and the bundle is
 *    published to the webhook configurations and CRDs (`publish`).
 * 2. Only once the API server has had time to see it (`propagationMs`) is a
 *    serving certificate signed by the new CA issued (`issue-serving`).
 * 3. The old CAs leave the bundle (`drop-old-cas`) only when every live replica
 *    reports serving that certificate.
 */

export interface CaFacts {
  /** SHA-256 fingerprint of the certificate. */
  readonly fingerprint: string;
  readonly notBefore: number;
  readonly notAfter: number;
}

export interface ServingFacts {
  readonly serial: string;
  readonly notBefore: number;
  readonly notAfter: number;
  /** Fingerprint of the CA in the bundle that signed it; undefined when none did. */
  readonly issuer: string | undefined;
  /** Its subject alternative names. */
  readonly hosts: readonly string[];
}

export interface ReplicaReport {
  /** Serial of the serving certificate the replica serves. */
  readonly serving: string;
  /** When it last said so (ms since the epoch). */
  readonly seenAt: number;
}

export interface RotationState {
  /** The CAs the bundle trusts, oldest first; the last one signs. */
  readonly cas: readonly CaFacts[];
  /** Whether the Secret holds the key of the last CA. */
  readonly signingKey: boolean;
  readonly serving: ServingFacts | undefined;
  /** The bundle last written into every webhook configuration and CRD, and when. */
  readonly published: { readonly bundle: string; readonly at: number } | undefined;
  /** Each replica's report, by its identity (pod name). */
  readonly replicas: Readonly<Record<string, ReplicaReport>>;
  /**
   * The pods the Service sends calls to (its EndpointSlices' serving endpoints), by name; undefined when not known
   * (a webhook URL instead of a Service). A pod there that has not reported the newest certificate holds the old
   * CAs in the bundle: one from before a switch to self-managed, or one that cannot reach the API server.
   */
  readonly endpoints?: readonly string[];
}

export interface RotationPolicy {
  readonly caValidityMs: number;
  readonly servingValidityMs: number;
  /** The names the serving certificate must carry: the Service's DNS names. */
  readonly hosts: readonly string[];
  /** How long the API server may take to see a published bundle. */
  readonly propagationMs: number;
  /** A replica that has not reported for this long is gone, and no longer counts. */
  readonly replicaTimeoutMs: number;
}

export type RotationStep =
  | { readonly kind: 'add-ca'; readonly reason: 'none' | 'no-key' | 'expiring' }
  | { readonly kind: 'publish'; readonly bundle: string }
  | { readonly kind: 'issue-serving'; readonly reason: 'none' | 'new-ca' | 'expiring' | 'hosts' }
  | { readonly kind: 'drop-old-cas'; readonly keep: CaFacts }
  | { readonly kind: 'wait'; readonly until: number; readonly reason: string };

/**
 * A certificate is renewed two thirds through its lifetime, as cert-manager does by default: when a third of the
 * configured validity is left (its notBefore is backdated for clock skew, so its own span is longer).
 */
export function renewAt(certificate: { readonly notAfter: number }, validityMs: number): number {
  return certificate.notAfter - Math.floor(validityMs / 3);
}

/** The identity of a bundle: its CAs' fingerprints, in order. */
export function bundleId(cas: readonly CaFacts[]): string {
  return cas.map((ca) => ca.fingerprint).join(',');
}

/** Replicas that reported within the timeout. */
export function liveReplicas(state: RotationState, policy: RotationPolicy, now: number): [string, ReplicaReport][] {
  return Object.entries(state.replicas).filter(([, report]) => now - report.seenAt <= policy.replicaTimeoutMs);
}

export function nextStep(state: RotationState, policy: RotationPolicy, now: number): RotationStep {
  const signer = state.cas.at(-1);
  if (!signer) return { kind: 'add-ca', reason: 'none' };
  if (!state.signingKey) return { kind: 'add-ca', reason: 'no-key' };
  const bundle = bundleId(state.cas);
  if (state.published?.bundle !== bundle) return { kind: 'publish', bundle };
  if (state.cas.length === 1 && now >= renewAt(signer, policy.caValidityMs)) return { kind: 'add-ca', reason: 'expiring' };

  const reissue = servingReason(state.serving, signer, policy, now);
  if (reissue) {
    // Even the first certificate waits: the bundle may keep CAs from before (cert-manager's, on a switch) that other pods still serve.
    const trustedFrom = state.published.at + policy.propagationMs;
    if (now < trustedFrom) return { kind: 'wait', until: trustedFrom, reason: 'the API server is picking up the new bundle' };
    return { kind: 'issue-serving', reason: reissue };
  }
  if (state.cas.length > 1) return waitForOldCas(state, policy, now);
  return { kind: 'wait', until: Math.min(renewAt(state.serving!, policy.servingValidityMs), renewAt(signer, policy.caValidityMs)), reason: 'certificates current' };
}

function servingReason(serving: ServingFacts | undefined, signer: CaFacts, policy: RotationPolicy, now: number) {
  if (!serving) return 'none';
  if (serving.issuer !== signer.fingerprint) return 'new-ca';
  if (now >= renewAt(serving, policy.servingValidityMs)) return 'expiring';
  if (policy.hosts.some((host) => !serving.hosts.includes(host))) return 'hosts';
  return undefined;
}

/** The old CAs go once every live replica serves the certificate the newest CA signed. */
function waitForOldCas(state: RotationState, policy: RotationPolicy, now: number): RotationStep {
  const serving = state.serving;
  const signer = state.cas.at(-1)!;
  if (serving?.issuer !== signer.fingerprint) return { kind: 'wait', until: now + policy.propagationMs, reason: 'no serving certificate from the newest CA yet' };
  const live = liveReplicas(state, policy, now);
  const current = new Set(live.filter(([, report]) => report.serving === serving.serial).map(([name]) => name));
  const behind = [...new Set([...live.map(([name]) => name), ...(state.endpoints ?? [])])].filter((name) => !current.has(name)).sort();
  if (live.length === 0 || behind.length > 0) {
    return {
      kind: 'wait',
      until: now + policy.propagationMs,
      reason: live.length === 0 ? 'no replica has reported yet' : `replicas still serving the previous certificate: ${behind.join(', ')}`,
    };
  }
  return { kind: 'drop-old-cas', keep: signer };
}
