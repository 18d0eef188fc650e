import { describe, expect, it } from 'vitest';
import { bundleId, nextStep, renewAt, type CaFacts, type RotationPolicy, type RotationState, type RotationStep, type ServingFacts } from '../../../../runtime/tls/self-managed/rotation.js';

const S = 1000;
const HOSTS = ['hooks.team.svc', 'hooks.team.svc.cluster.local'];
const POLICY: RotationPolicy = { caValidityMs: 300 * S, servingValidityMs: 90 * S, hosts: HOSTS, propagationMs: 20 * S, replicaTimeoutMs: 60 * S };

const caA: CaFacts = { fingerprint: 'AA', notBefore: 0, notAfter: 300 * S };
const caB: CaFacts = { fingerprint: 'BB', notBefore: 200 * S, notAfter: 500 * S };
const servingA: ServingFacts = { serial: '01', notBefore: 0, notAfter: 90 * S, issuer: 'AA', hosts: HOSTS };
const servingB: ServingFacts = { serial: '02', notBefore: 230 * S, notAfter: 320 * S, issuer: 'BB', hosts: HOSTS };

const steady: RotationState = { cas: [caA], signingKey: true, serving: servingA, published: { bundle: 'AA', at: 0 }, replicas: { 'pod-1': { serving: '01', seenAt: 30 * S } } };
/** CA B has joined the bundle and been published at 210 s; the replicas still serve A's certificate. */
const overlap: RotationState = {
  cas: [caA, caB],
  signingKey: true,
  serving: { ...servingA, notBefore: 180 * S, notAfter: 270 * S },
  published: { bundle: 'AA,BB', at: 210 * S },
  replicas: { 'pod-1': { serving: '01', seenAt: 215 * S }, 'pod-2': { serving: '01', seenAt: 215 * S } },
};

describe('the rotation of self-managed certificates', () => {
  it('starts a fresh install with a CA, publishes it, and issues the serving certificate once the API server has had time to see it', () => {
    const empty: RotationState = { cas: [], signingKey: false, serving: undefined, published: undefined, replicas: {} };
    expect(nextStep(empty, POLICY, 0)).toEqual({ kind: 'add-ca', reason: 'none' });
    const withCa: RotationState = { ...empty, cas: [caA], signingKey: true };
    expect(nextStep(withCa, POLICY, 1 * S)).toEqual({ kind: 'publish', bundle: 'AA' });
    const published: RotationState = { ...withCa, published: { bundle: 'AA', at: 2 * S } };
    expect(nextStep(published, POLICY, 3 * S)).toEqual({ kind: 'wait', until: 22 * S, reason: 'the API server is picking up the new bundle' });
    expect(nextStep(published, POLICY, 22 * S)).toEqual({ kind: 'issue-serving', reason: 'none' });
  });

  it('waits, while every certificate is current, until the first one is two thirds through its life', () => {
    expect(nextStep(steady, POLICY, 40 * S)).toEqual({ kind: 'wait', until: 60 * S, reason: 'certificates current' });
    expect(renewAt(servingA, POLICY.servingValidityMs)).toBe(60 * S);
    expect(renewAt(caA, POLICY.caValidityMs)).toBe(200 * S);
  });

  it('renews the serving certificate from the same CA when it nears expiry or lacks a DNS name', () => {
    expect(nextStep(steady, POLICY, 60 * S)).toEqual({ kind: 'issue-serving', reason: 'expiring' });
    const missingName: RotationState = { ...steady, serving: { ...servingA, hosts: [HOSTS[0]!] } };
    expect(nextStep(missingName, POLICY, 40 * S)).toEqual({ kind: 'issue-serving', reason: 'hosts' });
  });

  it('adds a new CA beside the old one when the CA nears expiry, and publishes both before serving from it', () => {
    const ageing: RotationState = { ...steady, serving: { ...servingA, notBefore: 180 * S, notAfter: 270 * S } };
    expect(nextStep(ageing, POLICY, 200 * S)).toEqual({ kind: 'add-ca', reason: 'expiring' });
    const added: RotationState = { ...ageing, cas: [caA, caB] };
    expect(nextStep(added, POLICY, 201 * S)).toEqual({ kind: 'publish', bundle: 'AA,BB' });
    expect(nextStep(overlap, POLICY, 220 * S)).toEqual({ kind: 'wait', until: 230 * S, reason: 'the API server is picking up the new bundle' });
    expect(nextStep(overlap, POLICY, 230 * S)).toEqual({ kind: 'issue-serving', reason: 'new-ca' });
  });

  it('drops the old CA only when every live replica serves the certificate of the new one', () => {
    const switched: RotationState = { ...overlap, serving: servingB, replicas: { 'pod-1': { serving: '02', seenAt: 235 * S }, 'pod-2': { serving: '01', seenAt: 225 * S } } };
    expect(nextStep(switched, POLICY, 236 * S)).toEqual({ kind: 'wait', until: 256 * S, reason: 'replicas still serving the previous certificate: pod-2' });
    const caughtUp: RotationState = { ...switched, replicas: { ...switched.replicas, 'pod-2': { serving: '02', seenAt: 240 * S } } };
    expect(nextStep(caughtUp, POLICY, 241 * S)).toEqual({ kind: 'drop-old-cas', keep: caB });
    // pod-2 stopped reporting at 225 s: after the timeout it no longer holds the old CA in the bundle.
    expect(nextStep(switched, POLICY, 286 * S)).toEqual({ kind: 'drop-old-cas', keep: caB });
    const nobody: RotationState = { ...switched, replicas: {} };
    expect(nextStep(nobody, POLICY, 241 * S)).toEqual({ kind: 'wait', until: 261 * S, reason: 'no replica has reported yet' });
  });

  it('keeps the old CA while a pod the Service sends calls to has not reported the new certificate (a pod from before the switch)', () => {
    const caughtUp: RotationState = { ...overlap, serving: servingB, replicas: { 'pod-1': { serving: '02', seenAt: 240 * S }, 'pod-2': { serving: '02', seenAt: 240 * S } } };
    const withOldPod: RotationState = { ...caughtUp, endpoints: ['pod-1', 'pod-2', 'cert-manager-era-pod'] };
    expect(nextStep(withOldPod, POLICY, 241 * S)).toEqual({ kind: 'wait', until: 261 * S, reason: 'replicas still serving the previous certificate: cert-manager-era-pod' });
    expect(nextStep({ ...withOldPod, endpoints: ['pod-1', 'pod-2'] }, POLICY, 241 * S)).toEqual({ kind: 'drop-old-cas', keep: caB });
  });

  it('keeps two CAs at most: a CA nearing expiry while the old one is still trusted waits for the drop', () => {
    const stuck: RotationState = { ...overlap, serving: { ...servingB, notBefore: 390 * S, notAfter: 480 * S }, replicas: { 'pod-1': { serving: '01', seenAt: 399 * S } } };
    expect(nextStep(stuck, POLICY, 400 * S)).toEqual({ kind: 'wait', until: 420 * S, reason: 'replicas still serving the previous certificate: pod-1' });
  });

  it('adds a CA when the Secret lost the key of its newest one', () => {
    expect(nextStep({ ...steady, signingKey: false }, POLICY, 40 * S)).toEqual({ kind: 'add-ca', reason: 'no-key' });
  });

  it('never lets a replica serve a certificate that the published bundle does not trust, through two CA rotations', () => {
    // CA 1 from 0 s, CA 2 from 200 s, CA 3 from 400 s (each renewed two thirds through its 300 s); serving certificates every 60 s.
    const world = simulate(450 * S);
    expect(world.untrusted).toEqual([]);
    const caRotation = ['add-ca:expiring', 'publish', 'issue-serving:new-ca', 'drop-old-cas', 'publish'];
    expect(world.steps).toEqual([
      ...['add-ca:none', 'publish', 'issue-serving:none', 'issue-serving:expiring', 'issue-serving:expiring'],
      ...caRotation,
      ...['issue-serving:expiring', 'issue-serving:expiring'],
      ...caRotation,
    ]);
  });
});

/**
 * The issuer and two replicas, checking every 5 s (replica pod-2 a check behind pod-1): the issuer takes each step as
 * the manager does, the replicas serve what the Secret holds on their next check, and the API server trusts what was
 * published. Records every step, and every moment a replica served a certificate outside the published bundle.
 */
function simulate(untilMs: number): { steps: string[]; untrusted: string[] } {
  let state: RotationState = { cas: [], signingKey: false, serving: undefined, published: undefined, replicas: {} };
  let published: readonly string[] = [];
  let serial = 0;
  let ca = 0;
  const served: Record<string, ServingFacts | undefined> = { 'pod-1': undefined, 'pod-2': undefined };
  const steps: string[] = [];
  const untrusted: string[] = [];
  for (let now = 0; now <= untilMs; now += 5 * S) {
    for (let step: RotationStep = nextStep(state, POLICY, now); step.kind !== 'wait'; step = nextStep(state, POLICY, now)) {
      steps.push(step.kind === 'add-ca' || step.kind === 'issue-serving' ? `${step.kind}:${step.reason}` : step.kind);
      if (step.kind === 'add-ca') {
        const fresh: CaFacts = { fingerprint: `CA${++ca}`, notBefore: now, notAfter: now + POLICY.caValidityMs };
        state = { ...state, cas: [...state.cas, fresh], signingKey: true };
      } else if (step.kind === 'publish') {
        published = state.cas.map((c) => c.fingerprint);
        state = { ...state, published: { bundle: bundleId(state.cas), at: now } };
      } else if (step.kind === 'issue-serving') {
        const signer = state.cas.at(-1)!;
        state = { ...state, serving: { serial: String(++serial), notBefore: now, notAfter: Math.min(now + POLICY.servingValidityMs, signer.notAfter), issuer: signer.fingerprint, hosts: HOSTS } };
      } else {
        state = { ...state, cas: [step.keep] };
      }
    }
    const replicas = { ...state.replicas };
    for (const pod of Object.keys(served)) {
      // pod-2 reads the Secret one check late.
      if (pod === 'pod-1' || now % (10 * S) === 0) served[pod] = state.serving;
      if (served[pod]) replicas[pod] = { serving: served[pod].serial, seenAt: now };
      const issuer = served[pod]?.issuer;
      if (issuer && !published.includes(issuer)) untrusted.push(`${now / S}s ${pod} serves ${served[pod]!.serial} from ${issuer}; trusted: ${published.join(',')}`);
    }
    state = { ...state, replicas };
  }
  return { steps, untrusted };
}
