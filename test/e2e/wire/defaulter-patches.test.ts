/**
 * Every way a defaulter can change its object (defaulter-behaviours.ts),
 * served over real HTTPS and judged by the API server's own code: the oracle
 * decodes each answer strictly and applies its patch with the API server's
 * JSON Patch library. What it stores must be exactly what the same handler
 * leaves in a plain object, as JSON.stringify writes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { BEHAVIOURS, behaviourWebhooks, widgetText, type Widget } from '../../fixtures/runtime/defaulter-behaviours.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';
import { judgeResponses, type ResponseCase, type ResponseVerdict } from '../../../support/oracle.js';

let t: TestServer;
let verdicts: Map<string, ResponseVerdict>;
beforeAll(async () => {
  t = await startTestServer({ webhooks: behaviourWebhooks });
  const names = Object.keys(BEHAVIOURS);
  const cases = await Promise.all(
    names.map(async (name): Promise<ResponseCase> => {
      const review = admissionReview({ object: JSON.parse(widgetText(name)) as Widget });
      const res = await t.post('/mutate-behaviour', review);
      return { body: res.text, uid: review.request!.uid, mutating: true, webhook: 'mutate-behaviour.example.io', object: review.request!.object ?? undefined };
    }),
  );
  const judged = judgeResponses(cases);
  verdicts = new Map(names.map((name, i) => [name, judged[i]!]));
});
afterAll(() => t.stop());

describe('the API server stores what the handler left', () => {
  it.each(Object.entries(BEHAVIOURS))('%s', (name, behaviour) => {
    const plain = JSON.parse(widgetText(name)) as Widget;
    const returned = behaviour(plain);
    const { patched, patch, ...verdict } = verdicts.get(name)!;
    expect(verdict).toEqual({ problems: [], apiVersion: 'admission.k8s.io/v1', allowed: true });
    expect(patch === undefined).toBe(name === 'read everything, change nothing');
    // No patch: the oracle reports the object unchanged.
    expect(patched ?? JSON.parse(widgetText(name))).toEqual(JSON.parse(JSON.stringify(returned ?? plain)));
  });
});
