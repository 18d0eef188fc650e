/**
 * `shaper-gen create types` on CRDs nobody here wrote: cert-manager's
 * Certificate and kubebuilder's CronJob tutorial's CronJob, obtained from the
 * Go module proxy (test/support/third-party-crds.ts). In a throwaway project:
 * the modules written and recorded in shaper.yaml; a validator on
 * Certificate, a defaulter on CronJob and a policy on CronJob using them,
 * compiled by tsc in strict mode; the handlers run by runWebhook; the
 * policy's CEL typed from the CronJob CRD, a misspelt field refused at
 * file:line:col; a changed CRD making the committed module stale for
 * `manifests --check`.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { CreateTypesFlags } from 'shaper-gen/internal/generator';
import { runWebhook } from 'shaper-gen/testing';
import { runCreateTypesCommand } from '../../../generator/src/create/run-create-types.js';
import { runManifests } from '../../../generator/src/manifests/run-manifests.js';
import { createFixtureProject, REPO_ROOT, type FixtureProject } from '../../support/fixture-project.js';
import { findObject, helmTemplate } from '../../support/helm.js';
import { CERT_MANAGER_VERSION, certManagerCrd, kubebuilderCronJobCrd } from '../../support/third-party-crds.js';

const CERTIFICATES_CRD = 'crds/cert-manager.io_certificates.yaml';
const CRONJOBS_CRD = 'crds/batch.tutorial.kubebuilder.io_cronjobs.yaml';
const CERTIFICATE_MODULE = 'src/api/cert-manager.io/v1.ts';
const CRONJOB_MODULE = 'src/api/batch.tutorial.kubebuilder.io/v1.ts';

const CERTIFICATE_VALIDATOR = `import { Webhook, assertValid, field, type CustomValidator, type FieldError, type Warnings } from 'shaper-gen';
import { CERTIFICATES, GROUP, VERSION, type Certificate } from '../api/cert-manager.io/v1.js';

/** RSA keys of 3072 bits or more, and no wildcard names. */
@Webhook({
  path: '/validate-certificate',
  mutating: false,
  rules: [{ groups: [GROUP], versions: [VERSION], resources: [CERTIFICATES.resource], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }],
  failurePolicy: 'Fail',
  sideEffects: 'None',
})
export class CertificateValidator implements CustomValidator<Certificate> {
  validateCreate(certificate: Certificate): Warnings {
    assertValid(problems(certificate));
  }

  validateUpdate(_old: Certificate, certificate: Certificate): Warnings {
    assertValid(problems(certificate));
  }
}

function problems(certificate: Certificate): FieldError[] {
  const errors: FieldError[] = [];
  const key = certificate.spec?.privateKey;
  const size = key?.size ?? 2048;
  if (key?.algorithm === 'RSA' && size < 3072) errors.push(field.invalid('spec.privateKey.size', size, 'RSA keys need 3072 bits or more'));
  certificate.spec?.dnsNames?.forEach((name, i) => {
    if (name.startsWith('*.')) errors.push(field.forbidden(\`spec.dnsNames[\${i}]\`, 'wildcard names are not issued here'));
  });
  return errors;
}
`;

const CRONJOB_DEFAULTER = `import { Webhook, type CustomDefaulter } from 'shaper-gen';
import { CRONJOBS, GROUP, VERSION, type CronJob } from '../api/batch.tutorial.kubebuilder.io/v1.js';

/** The tutorial's defaults, and a restart policy on the job's pods. */
@Webhook({
  path: '/mutate-cronjob',
  mutating: true,
  rules: [{ groups: [GROUP], versions: [VERSION], resources: [CRONJOBS.resource], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }],
  failurePolicy: 'Fail',
  sideEffects: 'None',
})
export class CronJobDefaulter implements CustomDefaulter<CronJob> {
  default(cronJob: CronJob): void {
    const spec = cronJob.spec;
    if (!spec) return;
    spec.concurrencyPolicy ??= 'Allow';
    spec.suspend ??= false;
    spec.successfulJobsHistoryLimit ??= 3;
    spec.failedJobsHistoryLimit ??= 1;
    const pod = spec.jobTemplate.spec?.template.spec;
    if (pod) pod.restartPolicy ??= 'OnFailure';
  }
}
`;

/** The policy's CEL reads the job's unbounded container lists: manifests warns with the API server's cost estimate. */
const COST_WARNING =
  "src/policies/cronjob-policy.ts:6:31: warning: the API server's estimated cost of this expression is 2,177,810, over the 1,000,000 it lets one expression use at run time: on a large enough object it stops with 'operation cancelled: actual cost limit exceeded' and failurePolicy Fail denies the request; bound the lists, maps and strings it reads in cronjobs.batch.tutorial.kubebuilder.io/v1's schema (maxItems, maxProperties, maxLength), or read fewer of them";
const UNTYPED_COST_WARNING =
  "src/policies/cronjob-policy.ts:6:31: warning: the API server's estimated cost of this expression is unbounded, over the 1,000,000 it lets one expression use at run time: on a large enough object it stops with 'operation cancelled: actual cost limit exceeded' and failurePolicy Fail denies the request; object is untyped here (the policy does not match exactly one resource), so every list and string counts as unbounded: match one resource, or read fewer lists";

const cronJobPolicy = (expression: string) => `import { ValidatingPolicy } from 'shaper-gen';
import { CRONJOBS, GROUP, VERSION } from '../api/batch.tutorial.kubebuilder.io/v1.js';

@ValidatingPolicy({
  rules: [{ groups: [GROUP], versions: [VERSION], resources: [CRONJOBS.resource], operations: ['CREATE', 'UPDATE'] }],
  validations: [{ expression: '${expression}', message: 'every container of the job needs a memory limit' }],
})
export class CronJobLimitsPolicy {}
`;
const LIMITS = 'object.spec.jobTemplate.spec.template.spec.containers.all(c, has(c.resources.limits) && "memory" in c.resources.limits)';

/** What the types refuse: a misspelt field, a value outside an enum, a missing required field. */
const WRONG = `import type { CronJob } from './api/batch.tutorial.kubebuilder.io/v1.js';
import type { Certificate } from './api/cert-manager.io/v1.js';
export const schedule = (cronJob: CronJob) => cronJob.spec?.schedul;
export const key: Certificate['spec'] = { secretName: 'tls', issuerRef: { name: 'ca' }, privateKey: { algorithm: 'DSA' } };
export const noIssuer: Certificate['spec'] = { secretName: 'tls' };
`;

let project: FixtureProject;
let log: MockInstance;
let error: MockInstance;
let created: { code: number; out: string[]; err: string[] };
const lines = (spy: MockInstance) => spy.mock.calls.map((call) => call.join(' '));

async function capture(run: () => Promise<number>): Promise<{ code: number; out: string[]; err: string[] }> {
  log.mockClear();
  error.mockClear();
  const code = await run();
  return { code, out: lines(log), err: lines(error) };
}

const createTypes = (flags: CreateTypesFlags) => capture(() => runCreateTypesCommand(flags, project.dir));
const manifests = (check = false) => capture(() => runManifests({ check }, project.dir));

beforeAll(async () => {
  // Downloads and builds on the first run only (then from the cache); minutes on a cold machine.
  const crds = { [CERTIFICATES_CRD]: certManagerCrd('certificates'), [CRONJOBS_CRD]: kubebuilderCronJobCrd() };
  project = createFixtureProject({
    'src/webhooks/certificate-validator.ts': CERTIFICATE_VALIDATOR,
    'src/webhooks/cronjob-defaulter.ts': CRONJOB_DEFAULTER,
    'src/policies/cronjob-policy.ts': cronJobPolicy(LIMITS),
    'src/wrong.ts': WRONG,
  });
  for (const [relative, file] of Object.entries(crds)) {
    mkdirSync(path.dirname(project.file(relative)), { recursive: true });
    copyFileSync(file, project.file(relative));
  }
  log = vi.spyOn(console, 'log').mockImplementation(() => {});
  error = vi.spyOn(console, 'error').mockImplementation(() => {});
  created = await createTypes({ from: ['crds'] });
}, 20 * 60_000);
afterAll(() => {
  vi.restoreAllMocks();
  project.remove();
});

describe(`create types from cert-manager ${CERT_MANAGER_VERSION}'s Certificate and the CronJob tutorial's CronJob`, () => {
  it('writes one module per group and version and records the CRDs under types in shaper.yaml', () => {
    expect(created).toEqual({
      code: 0,
      out: [
        'shaper-gen create types: 2 module(s) from crds into src/api',
        `  wrote ${CRONJOB_MODULE}: CronJob`,
        `  wrote ${CERTIFICATE_MODULE}: Certificate`,
        '  recorded the CRDs under types in shaper.yaml',
        "next: import GROUP, VERSION, the resources' constants and the kinds' interfaces from these modules for handlers, tests and policies; npx shaper-gen manifests rewrites them when the CRDs change, and manifests --check fails until it has (guide: types from CRDs)",
      ],
      err: [],
    });
    expect(project.read('shaper.yaml')).toBe(`apiVersion: shaper-gen.io/v1alpha1
kind: GeneratorConfig
sources: ["src/**/*.ts"]
handlersModule: src/webhooks.generated.ts
types:
  # CRDs another project owns: \`shaper-gen create types\` wrote their TypeScript types into \`out\`, and \`manifests\` keeps them in step.
  - from:
      - crds
    out: src/api
`);
  });

  it('compiles under tsc --strict with the handlers and the policy that use the types, and refuses what the schemas do not allow', () => {
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', '.', '--noEmit', '--pretty', 'false'], { cwd: project.dir, encoding: 'utf8' });
    expect(JSON.parse(readFileSync(project.file('tsconfig.json'), 'utf8')).compilerOptions.strict).toBe(true);
    expect(result.stdout.split('\n')).toEqual([
      "src/wrong.ts(3,61): error TS2551: Property 'schedul' does not exist on type 'CronJobSpec'. Did you mean 'schedule'?",
      `src/wrong.ts(4,103): error TS2322: Type '"DSA"' is not assignable to type '"RSA" | "ECDSA" | "Ed25519" | undefined'.`,
      "src/wrong.ts(5,14): error TS2741: Property 'issuerRef' is missing in type '{ secretName: string; }' but required in type 'CertificateSpec'.",
      '',
    ]);
  });

  it("has the kinds' structure: required and optional fields, enums, int-or-string, list maps, ObjectMeta", () => {
    const certificate = project.read(CERTIFICATE_MODULE);
    const cronJob = project.read(CRONJOB_MODULE);
    const declared = (text: string) => [...text.matchAll(/^export (?:const|interface) (\w+)/gm)].map((match) => match[1]);
    expect(declared(certificate).slice(0, 8)).toEqual([
      'GROUP',
      'VERSION',
      'API_VERSION',
      'CERTIFICATES',
      'Certificate',
      'CertificateSpec',
      'CertificateSpecAdditionalOutputFormats',
      'CertificateSpecIssuerRef',
    ]);
    expect(declared(cronJob).slice(0, 8)).toEqual(['GROUP', 'VERSION', 'API_VERSION', 'CRONJOBS', 'CronJob', 'CronJobSpec', 'CronJobSpecJobTemplate', 'CronJobSpecJobTemplateSpec']);
    for (const line of [
      "export const GROUP = 'cert-manager.io';",
      "export const CERTIFICATES: CachedResource = { group: GROUP, version: VERSION, resource: 'certificates' };",
      '  metadata?: ObjectMeta;',
      '  secretName: string;',
      '  issuerRef: CertificateSpecIssuerRef;',
      "  algorithm?: 'RSA' | 'ECDSA' | 'Ed25519';",
      "  status: 'True' | 'False' | 'Unknown';",
      '   * A list map (`x-kubernetes-list-type: map`) keyed by `type`: no two items have the same key, and server-side apply merges items by it.',
    ]) {
      expect(certificate.split('\n')).toContain(line);
    }
    for (const line of [
      "export const API_VERSION = 'batch.tutorial.kubebuilder.io/v1';",
      '  schedule: string;',
      '  jobTemplate: CronJobSpecJobTemplate;',
      "  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';",
      '  port: number | string;',
      '  limits?: { [key: string]: number | string };',
      '  active?: CronJobStatusActive[];',
    ]) {
      expect(cronJob.split('\n')).toContain(line);
    }
  });
});

describe('handlers typed by the generated modules', () => {
  it('a validator on Certificate refuses a small RSA key and a wildcard name, with the fields', async () => {
    const { CertificateValidator } = (await import(project.file('src/webhooks/certificate-validator.ts'))) as { CertificateValidator: new () => object };
    const certificate = (spec: object) => ({ apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'web', namespace: 'shop' }, spec });
    const valid = await runWebhook(CertificateValidator as never, {
      object: certificate({ secretName: 'web-tls', issuerRef: { name: 'ca' }, dnsNames: ['shop.example.com'], privateKey: { algorithm: 'ECDSA' } }),
    });
    expect(valid.response).toEqual({ uid: valid.response.uid, allowed: true });
    const denied = await runWebhook(CertificateValidator as never, {
      object: certificate({ secretName: 'web-tls', issuerRef: { name: 'ca' }, dnsNames: ['shop.example.com', '*.example.com'], privateKey: { algorithm: 'RSA' } }),
    });
    expect([denied.allowed, denied.code, denied.causes]).toEqual([
      false,
      422,
      [
        { reason: 'FieldValueInvalid', field: 'spec.privateKey.size', message: 'Invalid value: 2048: RSA keys need 3072 bits or more' },
        { reason: 'FieldValueForbidden', field: 'spec.dnsNames[1]', message: 'Forbidden: wildcard names are not issued here' },
      ],
    ]);
  });

  it("a defaulter on CronJob sets the tutorial's defaults and the pods' restart policy", async () => {
    const { CronJobDefaulter } = (await import(project.file('src/webhooks/cronjob-defaulter.ts'))) as { CronJobDefaulter: new () => object };
    const jobTemplate = { spec: { template: { spec: { containers: [{ name: 'report', image: 'report:1' }] } } } };
    const cronJob = {
      apiVersion: 'batch.tutorial.kubebuilder.io/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly', namespace: 'jobs' },
      spec: { schedule: '0 3 * * *', suspend: true, jobTemplate },
    };
    const decision = await runWebhook(CronJobDefaulter as never, { object: cronJob });
    expect(decision.patched).toEqual({
      ...cronJob,
      spec: {
        schedule: '0 3 * * *',
        suspend: true,
        concurrencyPolicy: 'Allow',
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 1,
        jobTemplate: { spec: { template: { spec: { containers: [{ name: 'report', image: 'report:1' }], restartPolicy: 'OnFailure' } } } },
      },
    });
  });
});

describe('a policy on CronJob, typed from its CRD', () => {
  it('type-checks its CEL against the schema and is written into the chart', async () => {
    const result = await manifests();
    expect(result.err).toEqual([COST_WARNING]);
    expect(result.code).toBe(0);
    const policy = findObject(
      await helmTemplate(project.file('charts/shaper-webhooks'), { kubeVersion: '1.37.0' }),
      'ValidatingAdmissionPolicy',
      'cron-job-limits-policy.batch.tutorial.kubebuilder.io',
    );
    expect([policy.spec.matchConstraints.resourceRules, policy.spec.validations]).toEqual([
      [{ apiGroups: ['batch.tutorial.kubebuilder.io'], apiVersions: ['v1'], resources: ['cronjobs'], operations: ['CREATE', 'UPDATE'], scope: '*' }],
      [{ expression: LIMITS, message: 'every container of the job needs a memory limit' }],
    ]);
  });

  it('refuses a misspelt field at file:line:col, naming the schema', async () => {
    const misspelt = LIMITS.replace('in c.resources', 'in c.resourcs');
    project.write('src/policies/cronjob-policy.ts', cronJobPolicy(misspelt));
    try {
      const result = await manifests();
      const column = (field: string) => "  validations: [{ expression: '".length + misspelt.indexOf(field) + 1;
      expect(result).toEqual({
        code: 1,
        out: [],
        err: [
          `src/policies/cronjob-policy.ts:6:${column('resourcs')}: validations[0].expression: CEL compilation failed at column ${misspelt.indexOf('resourcs') + 1}: No such key: resourcs (object is cronjobs.batch.tutorial.kubebuilder.io/v1, typed from its schema)`,
          'shaper-gen: 1 problem; nothing was written',
        ],
      });
    } finally {
      project.write('src/policies/cronjob-policy.ts', cronJobPolicy(LIMITS));
    }
  });
});

describe('kept current', () => {
  it('manifests --check fails on a module stale against its changed CRD, naming the command; manifests rewrites it', async () => {
    expect((await manifests(true)).code).toBe(0);
    const crd = project.read(CRONJOBS_CRD);
    writeFileSync(project.file(CRONJOBS_CRD), crd.replace('              schedule:\n', '              timeZone:\n                type: string\n              schedule:\n'));
    const stale = await manifests(true);
    expect(stale).toEqual({
      code: 1,
      out: [],
      err: [
        COST_WARNING,
        'shaper-gen: 1 generated file is stale; run `shaper-gen manifests` and commit the result:',
        `  ${CRONJOB_MODULE}: differs from what ${CRONJOBS_CRD} give: line 61: expected "  timeZone?: string;", found "  /** schedule in Cron format, see https://en.wikipedia.org/wiki/Cron. */"`,
      ],
    });
    const rewritten = await manifests();
    expect(rewritten.code).toBe(0);
    expect(rewritten.out.slice(1)).toEqual([`  wrote ${CRONJOB_MODULE}`]);
    expect(project.read(CRONJOB_MODULE).split('\n')).toContain('  timeZone?: string;');
    expect((await manifests(true)).code).toBe(0);
  });
});

describe('the built CLI', () => {
  const CLI = path.join(REPO_ROOT, 'dist/bin/shaper-gen.js');
  const shaperGen = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: project.dir, encoding: 'utf8' });

  it('refuses --from naming nothing, and a file of its own where a module goes, in one line each, writing nothing', () => {
    const config = project.read('shaper.yaml');
    const missing = shaperGen('create', 'types', '--from', 'crds/nope.yaml', 'crds');
    expect([missing.status, missing.stdout, missing.stderr]).toEqual([2, '', 'shaper-gen create types: --from crds/nope.yaml: no such CRD file, directory or matching glob\n']);
    project.write('src/mine/cert-manager.io/v1.ts', 'export const MINE = 1;\n');
    const taken = shaperGen('create', 'types', '--from', CERTIFICATES_CRD, '--out', 'src/mine');
    expect([taken.status, taken.stdout, taken.stderr]).toEqual([
      2,
      '',
      'shaper-gen create types: src/mine/cert-manager.io/v1.ts exists and was not written by create types, which overwrites only its own modules: move it away, or pass another --out\n',
    ]);
    expect(project.read('src/mine/cert-manager.io/v1.ts')).toBe('export const MINE = 1;\n');
    expect(project.read('shaper.yaml')).toBe(config);
  });

  it('removes a module whose CRD is gone, which manifests --check reports first', () => {
    const crd = project.read(CRONJOBS_CRD);
    writeFileSync(project.file(CRONJOBS_CRD), '');
    try {
      const check = shaperGen('manifests', '--check');
      expect([check.status, check.stderr]).toEqual([
        1,
        `${UNTYPED_COST_WARNING}\nshaper-gen: 1 generated file is stale; run \`shaper-gen manifests\` and commit the result:\n  ${CRONJOB_MODULE}: no longer generated (its kind is gone); run \`shaper-gen manifests\` to remove it\n`,
      ]);
      const removed = shaperGen('manifests');
      expect([removed.status, removed.stderr, removed.stdout.split('\n').slice(1)]).toEqual([0, `${UNTYPED_COST_WARNING}\n`, [`  removed ${CRONJOB_MODULE}`, '']]);
    } finally {
      writeFileSync(project.file(CRONJOBS_CRD), crd);
    }
    const restored = shaperGen('manifests');
    expect([restored.status, restored.stderr, restored.stdout.split('\n').slice(1)]).toEqual([0, `${COST_WARNING}\n`, [`  wrote ${CRONJOB_MODULE}`, '']]);
  });
});
