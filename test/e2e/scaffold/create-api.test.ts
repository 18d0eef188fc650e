/**
 * `shaper-gen create api` as a new user runs it: this checkout's packages
 * packed and installed into a fresh project, `shaper-gen init`, then the
 * command through the installed CLI, the project's own `npm run manifests`,
 * `npm test` and typecheck, and the chart through the pinned helm: the CRD of
 * the new kind, and of the kind with a second version, compared whole and
 * decoded strictly by the wire oracle (apiextensions.k8s.io/v1).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeManifests } from '../../../support/oracle.js';
import { findObject, helmLint, helmTemplate, helmTemplateText } from '../../support/helm.js';
import { createUserProject, outcome, type UserProject } from '../../support/user-project.js';

const NAME = 'guestbook-api';
const GROUP = 'webapp.example.com';
let user: UserProject;
const chart = () => path.join(user.dir, 'charts', NAME);
const createApi = (...flags: string[]) => user.sh('npx', ['shaper-gen', 'create', 'api', '--group', GROUP, '--kind', 'Guestbook', ...flags]);

function version(name: string, storage: boolean) {
  const apiVersion = `${GROUP}/${name}`;
  return {
    name,
    served: true,
    storage,
    subresources: { status: {} },
    schema: {
      openAPIV3Schema: {
        type: 'object',
        description: `A Guestbook (${apiVersion}).`,
        properties: {
          apiVersion: { type: 'string', description: `The API group and version of this object: ${apiVersion}.` },
          kind: { type: 'string', description: 'The kind of this object: Guestbook.' },
          metadata: { type: 'object' },
          spec: {
            type: 'object',
            description: 'The desired state of a Guestbook.',
            properties: { foo: { type: 'string', description: 'An example field: replace it with the fields of your API.', maxLength: 64 } },
          },
          status: {
            type: 'object',
            description: 'The observed state of a Guestbook.',
            properties: { observedGeneration: { type: 'integer', description: 'The metadata.generation this status describes.', minimum: 0 } },
          },
        },
      },
    },
  };
}

function crd(versions: unknown[]) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `guestbooks.${GROUP}`,
      labels: {
        'helm.sh/chart': `${NAME}-0.1.0`,
        'app.kubernetes.io/name': NAME,
        'app.kubernetes.io/instance': 'books',
        'app.kubernetes.io/version': '0.1.0',
        'app.kubernetes.io/managed-by': 'Helm',
      },
      annotations: { 'helm.sh/resource-policy': 'keep' },
    },
    spec: {
      group: GROUP,
      names: { kind: 'Guestbook', listKind: 'GuestbookList', plural: 'guestbooks', singular: 'guestbook' },
      scope: 'Namespaced',
      versions,
    },
  };
}

const renderedCrd = async () => findObject(await helmTemplate(chart(), { release: 'books', namespace: 'books-system' }), 'CustomResourceDefinition', `guestbooks.${GROUP}`);
const oracleVerdict = async () => judgeManifests(await helmTemplateText(chart())).filter((verdict) => verdict.kind === 'CustomResourceDefinition');
const ACCEPTED = [{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `guestbooks.${GROUP}`, problems: [] }];

beforeAll(async () => {
  user = await createUserProject(NAME);
}, 300_000);
afterAll(() => (user as UserProject | undefined)?.remove());

describe('shaper-gen create api in a project from shaper-gen init', () => {
  it('refuses a bad name in one line, exit 2, and writes nothing', async () => {
    expect(await outcome(createApi('--version', '1.0'))).toEqual({
      code: 2,
      stdout: '',
      stderr: 'shaper-gen create api: --version: the version "1.0" must be v<N>, v<N>alpha<M> or v<N>beta<M>, like v1, v1alpha1 or v1beta2\n',
    });
    expect(existsSync(path.join(user.dir, 'src/api'))).toBe(false);
  });

  it('adds a kind with a validator and a defaulter: manifests writes its CRD, the tests pass, helm renders and lints the chart', async () => {
    const { stdout } = await createApi('--version', 'v1alpha1', '--validator', '--defaulter');
    expect(stdout).toBe(
      [
        `shaper-gen create api: Guestbook ${GROUP}/v1alpha1 (namespaced, resource guestbooks)`,
        '  wrote src/api/webapp/v1alpha1/groupversion.ts',
        '  wrote src/api/webapp/v1alpha1/guestbook.ts',
        '  wrote src/webhooks/webapp/v1alpha1/guestbook-validator.ts',
        '  wrote src/webhooks/webapp/v1alpha1/guestbook-validator.test.ts',
        '  wrote src/webhooks/webapp/v1alpha1/guestbook-defaulter.ts',
        '  wrote src/webhooks/webapp/v1alpha1/guestbook-defaulter.test.ts',
        `next: describe GuestbookSpec and GuestbookStatus in src/api/webapp/v1alpha1/guestbook.ts (fields, @shaper: markers), then npm run manifests writes charts/${NAME}/templates/crds/${GROUP}_guestbooks.yaml; npm test runs the webhooks' tests`,
        '',
      ].join('\n'),
    );
    expect((await user.sh('npm', ['run', 'manifests'])).stdout).toContain(`wrote charts/${NAME}/templates/crds/${GROUP}_guestbooks.yaml`);
    expect((await user.sh('npm', ['run', 'manifests:check'])).stdout).toContain('generated files are up to date (4 webhooks, 1 policy and 1 CRD)');
    expect((await user.sh('npm', ['test'])).stdout).toMatch(/Tests\s+10 passed/);
    await user.sh('npm', ['run', 'typecheck']);
    expect(await helmLint(chart())).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(await renderedCrd()).toEqual(crd([version('v1alpha1', true)]));
    expect(await oracleVerdict()).toEqual(ACCEPTED);
  });

  it('adds a second version: told to mark the storage version, which manifests asks for; then one CRD serves both', async () => {
    const { stdout } = await createApi('--version', 'v1beta1');
    expect(stdout.split('\n').slice(0, 3)).toEqual([
      `shaper-gen create api: Guestbook ${GROUP}/v1beta1 (namespaced, resource guestbooks)`,
      '  wrote src/api/webapp/v1beta1/groupversion.ts',
      '  wrote src/api/webapp/v1beta1/guestbook.ts',
    ]);
    expect(stdout).toContain(
      '  Guestbook now has versions v1alpha1 (src/api/webapp/v1alpha1/guestbook.ts:24:4), v1beta1: mark the one etcd stores with @shaper:storageversion on its interface; manifests refuses the CRD until exactly one is marked\n',
    );
    const refused = await outcome(user.sh('npm', ['run', 'manifests']));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'src/api/webapp/v1beta1/guestbook.ts:24:4: Guestbook has several versions (v1beta1, v1alpha1): mark the one stored in etcd with @shaper:storageversion\nshaper-gen: 1 problem; nothing was written\n',
    );

    const kindFile = path.join(user.dir, 'src/api/webapp/v1beta1/guestbook.ts');
    writeFileSync(kindFile, readFileSync(kindFile, 'utf8').replace(' * @shaper:subresource status\n', ' * @shaper:subresource status\n * @shaper:storageversion\n'));
    await user.sh('npm', ['run', 'manifests']);
    await user.sh('npm', ['run', 'typecheck']);
    expect(await helmLint(chart())).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(await renderedCrd()).toEqual(crd([version('v1beta1', true), version('v1alpha1', false)]));
    expect(await oracleVerdict()).toEqual(ACCEPTED);
  });
  it('adds the conversion between the versions: its round-trip test passes, and manifests points the CRD at /convert with the CA', async () => {
    const { stdout } = await user.sh('npx', ['shaper-gen', 'create', 'conversion', '--group', GROUP, '--kind', 'Guestbook', '--hub', 'v1beta1']);
    expect(stdout.split('\n').slice(0, 3)).toEqual([
      'shaper-gen create conversion: GuestbookConversion, Guestbook v1alpha1 ⇄ v1beta1 (the hub)',
      '  wrote src/conversion/guestbook-conversion.ts',
      '  wrote src/conversion/guestbook-conversion.test.ts',
    ]);
    expect((await user.sh('npm', ['run', 'manifests'])).stdout).toContain('webhooks.generated.ts');
    await user.sh('npm', ['run', 'typecheck']);
    expect((await user.sh('npm', ['test'])).stdout).toMatch(/Tests\s+11 passed/);
    expect(await helmLint(chart())).toContain('1 chart(s) linted, 0 chart(s) failed');
    const rendered = await renderedCrd();
    expect(rendered.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep', 'cert-manager.io/inject-ca-from': `books-system/books-${NAME}-serving-cert` });
    expect(rendered.spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1', 'v1beta1'], clientConfig: { service: { name: `books-${NAME}`, namespace: 'books-system', port: 443, path: '/convert' } } },
    });
    expect(await oracleVerdict()).toEqual(ACCEPTED);
  });
});
