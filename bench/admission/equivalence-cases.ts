/**
 * What the equivalence check sends to both `shaper-gen serve` and the
 * controller-runtime peer: every benchmark body on every Profile path, the
 * sample's own requests, and Profiles that reach each default and each
 * denial of the sample's defaulter and validator.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { largeProfileReview, profileReview } from './bodies.ts';

export interface EquivalenceCase {
  name: string;
  path: string;
  review: AdmissionReviewRequest;
}

export interface AdmissionReviewRequest {
  apiVersion: string;
  request: { uid: string; operation: string; object: ProfileObject | null; oldObject: ProfileObject | null };
}

interface ProfileObject {
  metadata: { name?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown> | null;
}

const PROFILE_PATHS = ['/mutate-profile', '/validate-profile', '/validate-allow-all'];
const sampleRequests = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sample/requests');

/** The benchmark's Profile body with `change` applied to a copy of its object. */
function profile(change: (object: ProfileObject) => void, operation = 'CREATE'): AdmissionReviewRequest {
  const review = profileReview() as unknown as AdmissionReviewRequest;
  const object = review.request.object!;
  change(object);
  review.request.operation = operation;
  return review;
}

function update(oldSpec: Record<string, unknown>, newSpec: Record<string, unknown> | undefined): AdmissionReviewRequest {
  const review = profile((object) => {
    if (newSpec === undefined) delete object.spec;
    else object.spec = newSpec;
  }, 'UPDATE');
  review.request.oldObject = { ...structuredClone(review.request.object!), spec: oldSpec };
  return review;
}

function deletion(): AdmissionReviewRequest {
  const review = profile(() => {}, 'DELETE');
  review.request.oldObject = review.request.object;
  review.request.object = null;
  return review;
}

const withSpec = (spec: Record<string, unknown> | null) => profile((object) => (object.spec = spec));

/** Reach every branch of the defaulter (sample/webhooks/profile-defaulter.ts). */
const DEFAULTING: [string, AdmissionReviewRequest][] = [
  ['no spec', profile((object) => delete object.spec)],
  ['spec: null', withSpec(null)],
  ['tier silver, no priority', withSpec({ tier: 'silver' })],
  ['tier gold, priority set', withSpec({ tier: 'gold', priority: 7 })],
  ['unknown tier', withSpec({ tier: 'platinum' })],
  ['tier label already right', profile((object) => ((object.spec = { tier: 'gold', priority: 900 }), (object.metadata.labels = { ...object.metadata.labels, 'shaper.io/tier': 'gold' })))],
  ['tier label wrong', profile((object) => ((object.spec = { tier: 'gold' }), (object.metadata.labels = { 'shaper.io/tier': 'bronze' })))],
  ['no labels', profile((object) => delete object.metadata.labels)],
  ['DELETE', deletion()],
];

/** Reach every denial of the validator (sample/webhooks/profile-validator.ts), and a few allows beside them. */
const VALIDATION: [string, AdmissionReviewRequest][] = [
  ['missing spec', profile((object) => delete object.spec)],
  ['unsupported tier', withSpec({ tier: 'platinum' })],
  ['priority above range', withSpec({ priority: 5000 })],
  ['priority below range', withSpec({ priority: -1 })],
  ['priority at the bounds', withSpec({ priority: 1000 })],
  ['malformed cpu', withSpec({ resources: { cpu: 'lots' } })],
  ['negative memory', withSpec({ resources: { memory: '-1Gi' } })],
  ['negative cpu as a number', withSpec({ resources: { cpu: -2 } })],
  ['cpu as a number', withSpec({ resources: { cpu: 2, memory: '1.5Gi' } })],
  ['description of 256 characters', withSpec({ description: 'd'.repeat(256) })],
  ['description of 300 characters', withSpec({ description: 'd'.repeat(300) })],
  ['every error at once', withSpec({ tier: 'platinum', priority: 5000, resources: { cpu: 'lots', memory: '-1Gi' }, description: 'd'.repeat(300) })],
  ['UPDATE changing the tier', update({ tier: 'gold' }, { tier: 'silver' })],
  ['UPDATE dropping the tier', update({ tier: 'gold' }, { priority: 5 })],
  ['UPDATE setting a tier first', update({ priority: 5 }, { tier: 'gold', priority: 5 })],
  ['UPDATE keeping the tier', update({ tier: 'gold' }, { tier: 'gold', priority: 1 })],
  ['UPDATE without spec, tier was set', update({ tier: 'gold' }, undefined)],
  ['DELETE', deletion()],
];

export function equivalenceCases(): EquivalenceCase[] {
  const cases: EquivalenceCase[] = [];
  const bench: [string, AdmissionReviewRequest][] = [
    ['benchmark body (1.8 KB)', profileReview() as unknown as AdmissionReviewRequest],
    ['benchmark body (200 KB)', largeProfileReview() as unknown as AdmissionReviewRequest],
  ];
  const samples = readdirSync(sampleRequests)
    .filter((name) => name.endsWith('.json'))
    .map((name): [string, AdmissionReviewRequest] => [`sample/requests/${name}`, JSON.parse(readFileSync(path.join(sampleRequests, name), 'utf8')) as AdmissionReviewRequest])
    // The peer implements the Profile webhooks only.
    .filter(([, review]) => (review.request as { kind?: { kind?: string } }).kind?.kind === 'Profile');
  for (const urlPath of PROFILE_PATHS) for (const [name, review] of [...bench, ...samples]) cases.push({ name, path: urlPath, review });
  for (const [name, review] of DEFAULTING) cases.push({ name, path: '/mutate-profile', review });
  for (const [name, review] of VALIDATION) cases.push({ name, path: '/validate-profile', review });
  return cases;
}
