/**
 * Malformed input over real HTTPS (a tenth of every class of support/faults's
 * corpus, every large body): no transport error, no HTTP 5xx, every answer an
 * AdmissionReview that the API machinery decodes strictly, with the uid the
 * request carried and in the version it asked in; the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultCorpus, type FaultCase } from '../../../support/faults/corpus.js';
import { sendAll, type Answer } from '../../../support/faults/send.js';
import { oracleCases, tally, type FaultTally } from '../../../support/faults/tally.js';
import { identifyReview } from '../../../runtime/webhook/admission/review.js';
import { ProfileDefaulter } from '../../../sample/webhooks/profile-defaulter.js';
import { ProfileValidator } from '../../../sample/webhooks/profile-validator.js';
import { startTestServer, type TestServer } from '../../support/admission-server.js';
import { judgeResponses } from '../../../support/oracle.js';

let t: TestServer;
let cases: FaultCase[];
let answers: Answer[];
let result: FaultTally;
beforeAll(async () => {
  t = await startTestServer({ webhooks: [ProfileValidator, ProfileDefaulter] });
  cases = faultCorpus({ sample: 10 });
  answers = await sendAll({ port: t.addresses.webhook.port, ca: t.ca.cert }, cases, 8);
  const verdicts = judgeResponses(oracleCases(cases, answers));
  result = tally(cases, answers, verdicts);
}, 240_000);
afterAll(() => t.stop());

describe(`malformed admission requests`, () => {
  it('covers every class of the corpus', () => {
    expect(cases.length).toBeGreaterThan(1000);
    expect(Object.keys(result.statuses).sort()).toEqual(
      [
        '6.9 MiB',
        '7.1 MiB',
        '8 bytes flipped',
        'Content-Encoding',
        'Content-Type',
        'byte flipped',
        'invalid UTF-8',
        'nested 999 deep',
        'nested 1000 deep',
        'nested 1001 deep',
        'nested 5000 deep',
        'nested 10000 deep',
        'nested 100000 deep',
        'nested 1000000 deep',
        'prototype key',
        'truncated',
        'valid',
        'wrong type',
      ].sort(),
    );
  });

  it('no transport error, no HTTP 5xx, no answer that is not an AdmissionReview', () => {
    expect(result.transportErrors).toEqual([]);
    expect(result.unparseable).toEqual([]);
    const statuses = new Set(Object.values(result.statuses).flatMap((byStatus) => Object.keys(byStatus)));
    expect([...statuses].filter((status) => !['200', '400', '413', '415'].includes(status))).toEqual([]);
  });

  it('every answer passes the API machinery: strict decode, lossless round trip, the uid sent back, patches that apply', () => {
    expect(result.rejectedByOracle).toEqual([]);
    expect(result.wrongApiVersion).toEqual([]);
    expect(result.foreignUid).toEqual([]);
  });

  it('answers each class with the status it calls for', () => {
    const all = (kind: string, status: number) => expect(result.statuses[kind], kind).toEqual({ [status]: cases.filter((c) => c.kind === kind).length });
    all('valid', 200);
    all('6.9 MiB', 200);
    // Reviews the API server can send that the server will not process: HTTP 200 under the failurePolicy; 400 when the body is no review.
    all('7.1 MiB', 200);
    for (const depth of [1001, 5000, 10_000, 100_000, 1_000_000]) {
      const kind = `nested ${depth} deep`;
      const expected: Record<string, number> = {};
      for (const fault of cases.filter((c) => c.kind === kind)) {
        const { apiVersion, uid } = identifyReview(fault.body.toString('utf8'));
        const status = apiVersion && uid ? '200' : '400';
        expected[status] = (expected[status] ?? 0) + 1;
      }
      expect(result.statuses[kind], kind).toEqual(expected);
    }
  });

  it('keeps serving: a valid review afterwards gets the exact answer', async () => {
    const [valid] = faultCorpus({ sample: 100_000 });
    const [answer] = await sendAll({ port: t.addresses.webhook.port, ca: t.ca.cert }, [valid!], 1);
    expect(JSON.parse(answer!.text)).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-v1-validate-profile', allowed: true } });
  });
});
