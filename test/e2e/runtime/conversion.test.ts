/**
 * ConversionReviews against the built `shaper-gen serve` over HTTPS, with the
 * sample's converter (its handlers module's `conversions` export): objects of
 * both Profile versions converted to each version, compared whole, and the
 * answers judged by the API server's own converter (test/oracle `convert`:
 * apiextensions-apiserver's webhook client and acceptance checks) and strict
 * decoding into apiextensions v1 and v1beta1; malformed reviews answered with
 * HTTP 200 and a Failure the API server shows; metrics; and a converter that
 * faults in every way, from a fixture handlers module.
 */
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import https from 'node:https';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertThroughApiServer, judgeConversionResponses, type ConvertCase } from '../../../support/oracle.js';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { getPlain, OFFLINE_SAMPLE_PATHS, serve, ServeDir, until, waitReady, type ServeConfig, type ServeProcess } from '../../support/serve-process.js';
import { MemoryBudget, estimateReview } from '../../../runtime/server/memory-budget.js';
import { ProfileConversion } from '../../../sample/conversion/profile-conversion.js';
import { request, startTestServer, type HttpResult, type TestServer } from '../../support/admission-server.js';

const V1 = 'apiextensions.k8s.io/v1';
const V1BETA1 = 'apiextensions.k8s.io/v1beta1';
const SCHEDULING_ANNOTATION = 'shaper.io/v1beta1-scheduling';
/** Generated Profiles of each version round-tripped through the API server's converter. */
const ROUND_TRIPS = 300;

let uids = 0;
const nextUid = () => `7c3f1a2e-0000-4000-8000-${String(++uids).padStart(12, '0')}`;

function conversionReview(objects: unknown[], desiredAPIVersion: string, apiVersion = V1, uid = nextUid()) {
  return { apiVersion, kind: 'ConversionReview', request: { uid, desiredAPIVersion, objects } };
}

/** A Profile stored as v1alpha1, with every field v1alpha1 has, and metadata the API server sets. */
const alpha = {
  apiVersion: 'shaper.io/v1alpha1',
  kind: 'Profile',
  metadata: {
    name: 'gold',
    namespace: 'team-a',
    uid: '0d5bd2a6-1111-4a2b-9c3d-000000000001',
    resourceVersion: '4711',
    generation: 3,
    creationTimestamp: '2026-11-25T10:00:00Z',
    labels: { 'shaper.io/tier': 'gold' },
    annotations: { 'example.io/owner': 'team-a' },
  },
  spec: { tier: 'gold', priority: 900, resources: { cpu: '500m', memory: '1Gi' }, description: 'batch jobs' },
  status: { assignments: 2 },
};
const alphaAsBeta = {
  ...alpha,
  apiVersion: 'shaper.io/v1beta1',
  spec: { tier: 'gold', scheduling: { priority: 900 }, requests: { cpu: '500m', memory: '1Gi' }, description: 'batch jobs' },
};

/** A v1beta1 Profile with what v1alpha1 cannot hold (scheduling.preemptible). */
const beta = {
  apiVersion: 'shaper.io/v1beta1',
  kind: 'Profile',
  metadata: { name: 'silver', namespace: 'team-b', uid: '0d5bd2a6-1111-4a2b-9c3d-000000000002', resourceVersion: '815' },
  spec: { tier: 'silver', scheduling: { priority: 500, preemptible: true }, requests: { cpu: 2 } },
};
const betaAsAlpha = {
  ...beta,
  apiVersion: 'shaper.io/v1alpha1',
  metadata: { ...beta.metadata, annotations: { [SCHEDULING_ANNOTATION]: '{"preemptible":true}' } },
  spec: { tier: 'silver', priority: 500, resources: { cpu: 2 } },
};

const success = (apiVersion: string, uid: string, convertedObjects: unknown[]) => ({ apiVersion, kind: 'ConversionReview', response: { uid, convertedObjects, result: { status: 'Success' } } });
const failure = (apiVersion: string, uid: string, message: string) => ({ apiVersion, kind: 'ConversionReview', response: { uid, convertedObjects: [], result: { status: 'Failure', message } } });

/** Counter and histogram values of a Prometheus text exposition, by the series as written (`name{labels}`). */
function scrape(text: string): Map<string, number> {
  return new Map(
    text
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => {
        const at = line.lastIndexOf(' ');
        return [line.slice(0, at), Number(line.slice(at + 1))];
      }),
  );
}

let dir: ServeDir;
beforeAll(async () => {
  dir = await ServeDir.create();
});
afterAll(() => dir.remove());

/** A ServerConfig serving the sample's handlers module as the chart runs it (its `conversions` export), less the webhook that needs an API server. */
async function sampleConfig(extra?: string): Promise<ServeConfig> {
  const dist = (file: string) => JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'dist', file)).href);
  const handlers = path.join(dir.dir, 'sample-conversions.mjs');
  writeFileSync(
    handlers,
    `export { webhooks } from ${JSON.stringify(pathToFileURL(path.join(dir.dir, 'sample-offline.mjs')).href)};\nexport { conversions } from ${dist('sample/webhooks.generated.js')};\n`,
  );
  // The chart lists /convert among the expected paths: the server is ready only once it serves it.
  return dir.writeConfig({ handlers: [handlers], expectedPaths: [...OFFLINE_SAMPLE_PATHS, '/convert'], extra });
}

describe('the sample’s conversions served by `shaper-gen serve`', () => {
  let config: ServeConfig;
  let server: ServeProcess;
  const post = (body: unknown, urlPath = '/convert') => dir.post(config.port, urlPath, body);

  beforeAll(async () => {
    config = await sampleConfig();
    server = serve(['--config', config.file]);
    expect(await waitReady(config.health, server)).toContain('readyz check passed');
  });
  afterAll(() => void server.child.kill('SIGKILL'));

  it('converts objects of both versions to each version, echoing the uid, in v1 and v1beta1 reviews', async () => {
    const answers: { sent: ReturnType<typeof conversionReview>; res: HttpResult }[] = [];
    for (const apiVersion of [V1, V1BETA1]) {
      for (const desired of ['shaper.io/v1beta1', 'shaper.io/v1alpha1']) {
        const sent = conversionReview([alpha, beta], desired, apiVersion);
        answers.push({ sent, res: await post(sent) });
      }
    }
    expect(answers.map(({ res }) => [res.status, res.headers['content-type']])).toEqual(Array(4).fill([200, 'application/json']));
    expect(answers.map(({ res }) => res.json)).toEqual([
      success(V1, answers[0]!.sent.request.uid, [alphaAsBeta, beta]),
      success(V1, answers[1]!.sent.request.uid, [alpha, betaAsAlpha]),
      success(V1BETA1, answers[2]!.sent.request.uid, [alphaAsBeta, beta]),
      success(V1BETA1, answers[3]!.sent.request.uid, [alpha, betaAsAlpha]),
    ]);
    // Strictly decoded into apiextensions' Go types: no unknown, duplicate or lost field.
    expect(judgeConversionResponses(answers.map(({ res }) => res.text))).toEqual(
      answers.map(({ sent, res }) => ({ problems: [], apiVersion: sent.apiVersion, uid: sent.request.uid, status: 'Success', convertedObjects: res.json.response.convertedObjects })),
    );
  });

  it('is accepted by the API server’s own converter: each object and mixed lists, v1 and v1beta1 reviews, and the round trip', () => {
    const crd = (conversionReviewVersions: string[], desiredAPIVersion: string, objects: unknown[], list: boolean): ConvertCase => ({
      url: `https://localhost:${config.port}/convert`,
      caBundle: dir.ca.cert,
      group: 'shaper.io',
      kind: 'Profile',
      plural: 'profiles',
      versions: ['v1alpha1', 'v1beta1'],
      conversionReviewVersions,
      desiredAPIVersion,
      objects,
      list,
    });
    // 30 Profiles stored as either version, interleaved unevenly, each with its v1beta1 form.
    const mixed = Array.from({ length: 30 }, (_, i) => {
      const metadata = (object: { metadata: object }) => ({ ...object.metadata, name: `p${i}`, uid: `0d5bd2a6-2222-4a2b-9c3d-${String(i).padStart(12, '0')}` });
      return i % 3 === 0
        ? [
            { ...beta, metadata: metadata(beta) },
            { ...beta, metadata: metadata(beta) },
          ]
        : [
            { ...alpha, metadata: metadata(alpha) },
            { ...alphaAsBeta, metadata: metadata(alpha) },
          ];
    });
    const cases: ConvertCase[] = [];
    for (const reviewVersions of [['v1', 'v1beta1'], ['v1beta1']]) {
      cases.push(
        crd(reviewVersions, 'shaper.io/v1beta1', [alpha, beta], true),
        crd(reviewVersions, 'shaper.io/v1alpha1', [alpha, beta], true),
        crd(reviewVersions, 'shaper.io/v1beta1', [alpha], false),
        crd(reviewVersions, 'shaper.io/v1alpha1', [beta], false),
        crd(reviewVersions, 'shaper.io/v1beta1', [betaAsAlpha], false),
        crd(
          reviewVersions,
          'shaper.io/v1beta1',
          mixed.map(([stored]) => stored),
          true,
        ),
      );
    }
    const verdicts = convertThroughApiServer(cases);
    // A list sends only what is not in the desired version yet; a single object in it is not sent at all.
    const expected = [
      { problems: [], requests: 1, converted: [alphaAsBeta, beta] },
      { problems: [], requests: 1, converted: [alpha, betaAsAlpha] },
      { problems: [], requests: 1, converted: [alphaAsBeta] },
      { problems: [], requests: 1, converted: [betaAsAlpha] },
      { problems: [], requests: 1, converted: [beta] },
      // Only the v1alpha1 ones are sent; each answer goes back to its place in the list.
      { problems: [], requests: 1, converted: mixed.map(([, asBeta]) => asBeta) },
    ];
    expect(verdicts).toEqual([...expected, ...expected]);
  });

  it('round-trips generated Profiles of each version through the API server’s converter, metadata restored by it, keeping every field', () => {
    const profiles = (apiVersion: string, spec: fc.Arbitrary<Record<string, unknown>>) =>
      fc.sample(
        fc.record(
          {
            apiVersion: fc.constant(apiVersion),
            kind: fc.constant('Profile'),
            metadata: fc.record(
              {
                name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
                namespace: fc.constantFrom('team-a', 'team-b'),
                uid: fc.uuid(),
                resourceVersion: fc.nat().map(String),
                labels: fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z0-9]{0,8}$/), { minKeys: 1 }),
                annotations: fc.dictionary(fc.stringMatching(/^example\.com\/[a-z]{1,8}$/), fc.string(), { minKeys: 1 }),
              },
              { requiredKeys: ['name', 'namespace', 'uid'] },
            ),
            spec,
            status: fc.record({ assignments: fc.nat(50) }, { requiredKeys: [] }),
          },
          { requiredKeys: ['apiVersion', 'kind', 'metadata'] },
        ),
        { numRuns: ROUND_TRIPS, seed: 37 },
      );
    const quantities = fc.record({ cpu: fc.oneof(fc.constantFrom('500m', '2'), fc.nat(64)), memory: fc.constantFrom('1Gi', '512Mi') }, { requiredKeys: [] });
    const common = { tier: fc.constantFrom('bronze', 'silver', 'gold'), description: fc.string({ maxLength: 40 }) };
    const alphas = profiles('shaper.io/v1alpha1', fc.record({ ...common, priority: fc.nat(1000), resources: quantities }, { requiredKeys: [] }));
    const betas = profiles(
      'shaper.io/v1beta1',
      fc.record({ ...common, scheduling: fc.record({ priority: fc.nat(1000), preemptible: fc.boolean() }, { requiredKeys: [] }), requests: quantities }, { requiredKeys: [] }),
    );
    const through = (objects: unknown[], desiredAPIVersion: string) => {
      const [verdict] = convertThroughApiServer([
        {
          url: `https://localhost:${config.port}/convert`,
          caBundle: dir.ca.cert,
          group: 'shaper.io',
          kind: 'Profile',
          plural: 'profiles',
          versions: ['v1alpha1', 'v1beta1'],
          conversionReviewVersions: ['v1'],
          desiredAPIVersion,
          objects,
          list: true,
        },
      ]);
      expect([verdict!.problems, verdict!.error]).toEqual([[], undefined]);
      return verdict!.converted!;
    };
    expect(through(through(alphas, 'shaper.io/v1beta1'), 'shaper.io/v1alpha1')).toEqual(alphas);
    expect(through(through(betas, 'shaper.io/v1alpha1'), 'shaper.io/v1beta1')).toEqual(betas);
  });

  it('answers malformed reviews with HTTP 200 and a Failure naming the problem, and serves on', async () => {
    const uid = nextUid();
    const plain = (body: string) => post(body);
    const review = conversionReview([alpha], 'shaper.io/v1beta1');
    const sent = {
      'not JSON': await plain('{"apiVersion": '),
      'a JSON array': await plain('[1, 2]'),
      'empty body': await plain(''),
      'wrong apiVersion': await post({ apiVersion: 'admission.k8s.io/v1', kind: 'ConversionReview', request: { uid } }),
      'wrong kind': await post({ apiVersion: V1, kind: 'AdmissionReview', request: { uid } }),
      'no request': await post({ apiVersion: V1, kind: 'ConversionReview' }),
      'no uid': await post({ apiVersion: V1BETA1, kind: 'ConversionReview', request: { desiredAPIVersion: 'shaper.io/v1beta1', objects: [] } }),
      'uid not a string': await post({ apiVersion: V1, kind: 'ConversionReview', request: { uid: 42, desiredAPIVersion: 'shaper.io/v1beta1', objects: [] } }),
      'no desiredAPIVersion': await post({ apiVersion: V1, kind: 'ConversionReview', request: { uid, objects: [] } }),
      'objects not an array': await post({ apiVersion: V1, kind: 'ConversionReview', request: { uid, desiredAPIVersion: 'shaper.io/v1beta1', objects: { 0: alpha } } }),
      'Content-Type text/plain': await postWith(config.port, JSON.stringify(review), { 'Content-Type': 'text/plain' }),
      'Content-Encoding gzip': await postWith(config.port, JSON.stringify(review), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }),
      'too deep': await plain(
        `{"apiVersion":"${V1}","kind":"ConversionReview","request":{"uid":"${uid}","desiredAPIVersion":"shaper.io/v1beta1","objects":[${'['.repeat(1100)}${']'.repeat(1100)}]}}`,
      ),
    };
    expect(Object.fromEntries(Object.entries(sent).map(([name, res]) => [name, [res.status, res.json]]))).toEqual({
      'not JSON': [200, failure(V1, '', expect.stringMatching(/^request body is not valid JSON: /))],
      'a JSON array': [200, failure(V1, '', 'request body must be a JSON object (a ConversionReview)')],
      'empty body': [200, failure(V1, '', 'request body is empty')],
      'wrong apiVersion': [200, failure(V1, uid, 'unsupported apiVersion "admission.k8s.io/v1"; expected one of apiextensions.k8s.io/v1, apiextensions.k8s.io/v1beta1')],
      'wrong kind': [200, failure(V1, uid, 'unsupported kind "AdmissionReview"; expected ConversionReview')],
      'no request': [200, failure(V1, '', 'ConversionReview has no request')],
      'no uid': [200, failure(V1BETA1, '', 'ConversionReview request has no uid')],
      'uid not a string': [200, failure(V1, '', 'request.uid must be a string, got number 42')],
      'no desiredAPIVersion': [200, failure(V1, uid, 'request.desiredAPIVersion must be a group/version string, got undefined')],
      'objects not an array': [200, failure(V1, uid, expect.stringMatching(/^request\.objects must be an array, got /))],
      'Content-Type text/plain': [200, failure(V1, review.request.uid, 'Content-Type "text/plain" not supported; expected application/json')],
      'Content-Encoding gzip': [200, failure(V1, review.request.uid, 'Content-Encoding "gzip" not supported; the API server sends conversion reviews unencoded')],
      'too deep': [200, failure(V1, uid, 'request body nests objects or arrays more than 1000 levels deep')],
    });
    expect(judgeConversionResponses(Object.values(sent).map((res) => res.text)).map((verdict) => [verdict.problems, verdict.status])).toEqual(
      Array(Object.keys(sent).length).fill([[], 'Failure']),
    );

    const good = await post(review);
    expect([good.status, good.json, server.child.exitCode]).toEqual([200, success(V1, review.request.uid, [alphaAsBeta]), null]);
  });

  it('fails a review with an object it cannot convert, naming the object, its kind and version, and converts none', async () => {
    const other = { apiVersion: 'shaper.io/v1', kind: 'Assignment', metadata: { name: 'a1', namespace: 'team-a' } };
    const v2 = { ...alpha, apiVersion: 'shaper.io/v2' };
    const source = `${path.join(dir.dir, 'sample-conversions.mjs')}#ProfileConversion`;
    const cases = [
      conversionReview([alpha, other], 'shaper.io/v1beta1'),
      conversionReview([alpha, v2], 'shaper.io/v1beta1'),
      conversionReview([alpha], 'shaper.io/v2'),
      conversionReview([alpha], 'example.io/v1beta1'),
      conversionReview([alpha], 'shaper.io'),
      conversionReview([alpha, 'a string', null], 'shaper.io/v1beta1'),
      conversionReview([{ kind: 'Profile', metadata: { name: 'x' } }], 'shaper.io/v1beta1'),
    ];
    const answers = await Promise.all(cases.map((review) => post(review)));
    expect(answers.map((res) => [res.status, res.json])).toEqual(
      [
        'no conversion for Assignment in group shaper.io is served here (converters: shaper.io/Profile)',
        `${source} cannot convert Profile v2: it converts v1beta1, v1alpha1 (hub v1beta1); add spokes.v2`,
        `${source} cannot convert Profile v2: it converts v1beta1, v1alpha1 (hub v1beta1); add spokes.v2`,
        'Profile team-a/gold is in group shaper.io; it cannot be converted to example.io/v1beta1',
        'desiredAPIVersion "shaper.io" is not group/version',
        'objects[1] is not an object',
        'objects[0] has no apiVersion of the form group/version',
      ].map((message, i) => [200, failure(V1, cases[i]!.request.uid, message)]),
    );
  });

  it('counts reviews by result, converted objects by kind and versions, and their latency', async () => {
    const before = scrape((await getPlain(config.metrics, '/metrics')).text);
    await post(conversionReview([alpha, alpha, beta], 'shaper.io/v1beta1'));
    await post(conversionReview([beta], 'shaper.io/v1alpha1', V1BETA1));
    await post(conversionReview([{ ...alpha, kind: 'Widget' }], 'shaper.io/v1beta1'));
    await post('not json');
    const after = scrape((await getPlain(config.metrics, '/metrics')).text);
    const delta = (series: string) => (after.get(series) ?? 0) - (before.get(series) ?? 0);
    expect(
      Object.fromEntries(
        [
          'shaper_webhook_conversion_reviews_total{webhook="/convert",result="Success"}',
          'shaper_webhook_conversion_reviews_total{webhook="/convert",result="Failure"}',
          'shaper_webhook_converted_objects_total{webhook="/convert",kind="shaper.io/Profile",from="v1alpha1",to="v1beta1"}',
          'shaper_webhook_converted_objects_total{webhook="/convert",kind="shaper.io/Profile",from="v1beta1",to="v1alpha1"}',
          'shaper_webhook_conversion_duration_seconds_count{webhook="/convert"}',
          'shaper_webhook_rejected_requests_total{code="400"}',
        ].map((series) => [series, delta(series)]),
      ),
    ).toEqual({
      'shaper_webhook_conversion_reviews_total{webhook="/convert",result="Success"}': 2,
      'shaper_webhook_conversion_reviews_total{webhook="/convert",result="Failure"}': 2,
      // The beta object already in v1beta1 is answered unchanged and not counted as converted.
      'shaper_webhook_converted_objects_total{webhook="/convert",kind="shaper.io/Profile",from="v1alpha1",to="v1beta1"}': 2,
      'shaper_webhook_converted_objects_total{webhook="/convert",kind="shaper.io/Profile",from="v1beta1",to="v1alpha1"}': 1,
      'shaper_webhook_conversion_duration_seconds_count{webhook="/convert"}': 4,
      // Only the review that could not be read at all is a rejected request.
      'shaper_webhook_rejected_requests_total{code="400"}': 1,
    });
  });

  it('refuses GET with 405 and Allow: POST', async () => {
    const res = await postWith(config.port, '', {}, 'GET');
    expect([res.status, res.headers.allow, res.json]).toEqual([405, 'POST', failure(V1, '', 'method GET not allowed; conversion webhooks take POST')]);
  });
});

describe('with workers: 2', () => {
  it('converts in both processes, and the primary sums their conversion metrics', async () => {
    const config = await sampleConfig('workers: 2');
    const server = serve(['--config', config.file]);
    try {
      expect(await waitReady(config.health, server)).toBe('[+]shutdown ok\n[+]worker-1 ok\n[+]worker-2 ok\nreadyz check passed\n');
      // A new connection per request: the primary hands connections to the workers in turn.
      const reviews = Array.from({ length: 10 }, () => conversionReview([alpha, beta], 'shaper.io/v1alpha1'));
      const answers = await Promise.all(reviews.map((review) => dir.post(config.port, '/convert', review)));
      expect(answers.map((res) => res.json)).toEqual(reviews.map((review) => success(V1, review.request.uid, [alpha, betaAsAlpha])));
      const metrics = scrape((await getPlain(config.metrics, '/metrics')).text);
      expect([
        metrics.get('shaper_webhook_conversion_reviews_total{webhook="/convert",result="Success"}'),
        metrics.get('shaper_webhook_converted_objects_total{webhook="/convert",kind="shaper.io/Profile",from="v1beta1",to="v1alpha1"}'),
        metrics.get('shaper_webhook_conversion_duration_seconds_count{webhook="/convert"}'),
      ]).toEqual([10, 10, 10]);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

describe('a converter that faults', () => {
  let config: ServeConfig;
  let server: ServeProcess;
  const gadget = (mode: string) => ({ apiVersion: 'example.io/v1', kind: 'Gadget', metadata: { name: `g-${mode}`, namespace: 'lab', uid: `uid-${mode}` }, spec: { mode } });
  const source = 'test/fixtures/runtime/conversion-fault-handlers.ts#GadgetConversion';

  beforeAll(async () => {
    config = await dir.writeConfig({ handlers: ['test/fixtures/runtime/conversion-fault-handlers.ts'], expectedPaths: ['/convert'] });
    server = serve(['--config', config.file]);
    expect(await waitReady(config.health, server)).toContain('readyz check passed');
  });
  afterAll(() => void server.child.kill('SIGKILL'));

  it('answers each fault with HTTP 200 and a Failure naming it, logs what was thrown with its stack, and serves on', async () => {
    const failed = (mode: string) => `converting Gadget lab/g-${mode} from example.io/v1 to example.io/v2: spokes.v1.toHub failed: `;
    const expected: Record<string, string> = {
      throw: `${failed('throw')}gadget spec.mode "throw" cannot be converted`,
      'throw-string': `${failed('throw-string')}a plain string`,
      'throw-null-prototype': `${failed('throw-null-prototype')}a null-prototype object`,
      'throw-hostile': `${failed('throw-hostile')}a thrown HostileError that cannot be described`,
      'throw-revoked-proxy': `${failed('throw-revoked-proxy')}a thrown object that cannot be described`,
      promise: `${source} spokes.v1.toHub returned a Promise; conversions must be synchronous`,
      string: `${source} spokes.v1.toHub returned string, not an object`,
      bigint: `${source} spokes.v1.toHub returned an object JSON cannot carry: spec.size: a BigInt is not representable in JSON`,
      circular: `${source} spokes.v1.toHub returned an object JSON cannot carry: spec.self: a reference to an enclosing object (a cycle) is not representable in JSON`,
    };
    const reviews = Object.keys(expected).map((mode) => conversionReview([gadget('plain'), gadget(mode)], 'example.io/v2'));
    const answers: HttpResult[] = [];
    for (const review of reviews) answers.push(await dir.post(config.port, '/convert', review));
    expect(answers.map((res) => [res.status, res.json?.response?.result?.message ?? res.text])).toEqual(Object.values(expected).map((message) => [200, expect.stringContaining(message)]));
    expect(answers.map((res) => res.json)).toEqual(reviews.map((review, i) => failure(V1, review.request.uid, answers[i]!.json.response.result.message)));

    const logged = (review: { request: { uid: string } }) => server.logs().find((line) => line.uid === review.request.uid);
    await until(() => reviews.every((review) => logged(review) !== undefined), 5000);
    const thrown = server.logs().find((line) => line.uid === reviews[0]!.request.uid);
    expect({ level: thrown?.level, msg: thrown?.msg, type: thrown?.err?.type, stackNamesTheConverter: String(thrown?.err?.stack).includes('conversion-fault-handlers.ts') }).toEqual({
      level: 'error',
      msg: expected.throw,
      type: 'TypeError',
      stackNamesTheConverter: true,
    });
    // A converter's bug (anything thrown, an object JSON cannot carry) is an error; a result of the wrong shape is reported to the API server only.
    expect(reviews.map((review) => logged(review)?.level)).toEqual(['error', 'error', 'error', 'error', 'error', 'info', 'info', 'error', 'error']);
    const good = conversionReview([gadget('plain')], 'example.io/v2');
    expect([(await dir.post(config.port, '/convert', good)).json, server.child.exitCode]).toEqual([success(V1, good.request.uid, [{ ...gadget('plain'), apiVersion: 'example.io/v2' }]), null]);
  });

  it('what the API server makes of it: the Failure message in its error, and the answers it refuses though the server sent them', () => {
    const verdicts = convertThroughApiServer(
      ['throw', 'rename', 'bad-label', 'metadata', 'no-metadata'].map((mode) => ({
        url: `https://127.0.0.1:${config.port}/convert`,
        caBundle: dir.ca.cert,
        group: 'example.io',
        kind: 'Gadget',
        plural: 'gadgets',
        versions: ['v1', 'v2'],
        conversionReviewVersions: ['v1'],
        desiredAPIVersion: 'example.io/v2',
        objects: [{ ...gadget(mode), metadata: { ...gadget(mode).metadata, resourceVersion: '42', labels: { keep: 'me' } } }],
        list: false,
      })),
    );
    const original = (mode: string) => ({ ...gadget(mode), apiVersion: 'example.io/v2', metadata: { ...gadget(mode).metadata, resourceVersion: '42', labels: { keep: 'me' } } });
    expect(verdicts).toEqual([
      {
        problems: [],
        requests: 1,
        error: `conversion webhook for example.io/v1, Kind=Gadget failed: converting Gadget lab/g-throw from example.io/v1 to example.io/v2: spokes.v1.toHub failed: gadget spec.mode "throw" cannot be converted`,
      },
      { problems: [], requests: 1, error: 'conversion webhook for example.io/v1, Kind=Gadget returned invalid object: must have the same name: g-rename != g-rename-renamed' },
      {
        problems: [],
        requests: 1,
        error: expect.stringMatching(/^conversion webhook for example\.io\/v1, Kind=Gadget returned invalid metadata: metadata\.labels: Invalid value: "not a label value!"/),
      },
      {
        problems: [],
        requests: 1,
        converted: [{ ...original('metadata'), spec: { mode: 'metadata', converted: true }, metadata: { ...original('metadata').metadata, labels: { 'example.io/converted': 'true' } } }],
      },
      { problems: [], requests: 1, converted: [original('no-metadata')] },
    ]);
  });
});

describe('limits: request size and the review heap budget', () => {
  const MiB = 1024 * 1024;
  const budget = new (class RecordingBudget extends MemoryBudget {
    peak = 0;
    override tryAcquire(cost: number) {
      const release = super.tryAcquire(cost);
      this.peak = Math.max(this.peak, this.bytesInUse);
      return release;
    }
    override acquire(cost: number, timeoutMs: number) {
      return super.acquire(cost, timeoutMs).then((release) => {
        this.peak = Math.max(this.peak, this.bytesInUse);
        return release;
      });
    }
  })(4 * MiB);
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ webhooks: [], conversions: [ProfileConversion], memory: budget, config: { webhook: { maxRequestBytes: 2 * MiB } } });
  });
  afterAll(() => t.stop());

  const many = (count: number) =>
    conversionReview(
      Array.from({ length: count }, (_, i) => ({ ...alpha, metadata: { ...alpha.metadata, name: `p${i}` } })),
      'shaper.io/v1beta1',
    );

  it('answers a body over maxRequestBytes, by Content-Length or streamed, with a Failure naming the uid it began with, and serves on', async () => {
    const review = many(6000);
    const size = Buffer.byteLength(JSON.stringify(review));
    expect(size).toBeGreaterThan(2 * MiB);
    const declared = await t.post('/convert', review);
    const streamed = await t.post('/convert', review, { chunked: true });
    expect([declared.status, declared.json, streamed.status, streamed.json]).toEqual([
      200,
      failure(V1, review.request.uid, `request body of ${size} bytes or more exceeds the limit of ${2 * MiB} bytes`),
      200,
      failure(V1, review.request.uid, expect.stringMatching(new RegExp(`^request body of \\d+ bytes or more exceeds the limit of ${2 * MiB} bytes$`))),
    ]);
    const small = conversionReview([alpha], 'shaper.io/v1beta1');
    expect((await t.post('/convert', small)).json).toEqual(success(V1, small.request.uid, [alphaAsBeta]));
  });

  it('refuses a review that could never fit with a Failure naming what it needs, and serves on', async () => {
    const review = many(3000);
    const { cost } = estimateReview(JSON.stringify(review), true);
    expect(cost).toBeGreaterThan(budget.capacity);
    const rejected = async () => scrape((await t.get('metrics', '/metrics')).text).get('shaper_webhook_rejected_requests_total{code="413"}') ?? 0;
    const before = await rejected();
    const res = await t.post('/convert', review);
    expect([res.status, res.json]).toEqual([
      200,
      failure(
        V1,
        review.request.uid,
        `this review needs about ${(cost / MiB).toFixed(0)} MiB of heap to convert, more than the server can give it now (4 MiB for reviews): raise the container's memory limit (chart: resources.limits.memory)`,
      ),
    ]);
    const small = conversionReview([alpha], 'shaper.io/v1beta1');
    expect((await t.post('/convert', small)).json).toEqual(success(V1, small.request.uid, [alphaAsBeta]));
    expect((await rejected()) - before).toBe(1);
  });

  it('converts reviews that fit one at a time but not together, one after another', async () => {
    const reviews = [many(600), many(600), many(600)];
    const { cost } = estimateReview(JSON.stringify(reviews[0]), true);
    expect([cost < budget.capacity, 2 * cost > budget.capacity]).toEqual([true, true]);
    const answers = await Promise.all(reviews.map((review) => t.post('/convert', review)));
    expect(answers.map((res) => [res.status, res.json.response.uid, res.json.response.result, res.json.response.convertedObjects.length])).toEqual(
      reviews.map((review) => [200, review.request.uid, { status: 'Success' }, 600]),
    );
    // Never two at once: the heap charged at any time stayed within one review's cost.
    expect([budget.peak, budget.bytesInUse]).toEqual([cost, 0]);
  });
});

/** A request to the webhook port with exactly these headers (and Content-Length). */
function postWith(port: number, body: string, headers: Record<string, string>, method = 'POST'): Promise<HttpResult> {
  return request(
    https,
    { host: '127.0.0.1', port, path: '/convert', method, ca: dir.ca.cert, servername: 'localhost', agent: false, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
    body,
  );
}
