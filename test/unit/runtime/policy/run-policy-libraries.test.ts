/**
 * `runPolicy` evaluates with the API server's own CEL (k8s.io/apiserver and
 * cel-go compiled to WebAssembly): the Kubernetes libraries, cel-go's
 * extensions with their semantics (code points), its runtime errors and the
 * runtime cost limit, and the authorizer answered from rules the test
 * declares. Each policy denies with a messageExpression that renders what the
 * expressions computed, so that the whole decision is compared.
 */
import { describe, expect, it } from 'vitest';
import { ValidatingPolicy } from 'shaper-gen';
import { runPolicy, type AuthorizerAnswer } from 'shaper-gen/testing';

const RULES = [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }] as const;

const configMap = (data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'team-a' }, data });

/** A policy class named `name` whose one validation is `expression`, with the messageExpression given. */
function policy(name: string, expression: string, messageExpression?: string): abstract new () => unknown {
  const target = { [name]: class {} }[name]!;
  ValidatingPolicy({ rules: RULES, validations: [{ expression, ...(messageExpression !== undefined && { messageExpression }) }] })(target);
  return target;
}

// Core-group resources: the default name has no domain.
const policyName = (name: string) => name.replace(/[A-Z]/g, (c, i: number) => (i ? '-' : '') + c.toLowerCase());

const denial = (name: string, message: string) => ({
  matched: true,
  allowed: false,
  code: 422,
  reason: 'Invalid',
  message: `configmaps "settings" is forbidden: ValidatingAdmissionPolicy '${policyName(name)}' with binding '${policyName(name)}' denied request: ${message}`,
  warnings: [],
  auditAnnotations: {},
});

const ALLOWED = { matched: true, allowed: true, code: 200, warnings: [], auditAnnotations: {} };

/** What the expressions compute, joined by spaces, as the denial's message. */
async function rendered(name: string, expressions: readonly string[], data: Record<string, string> = {}) {
  return runPolicy(policy(name, 'false', `[${expressions.join(', ')}].join(' ')`), { object: configMap(data) });
}

describe('the Kubernetes CEL libraries', () => {
  it('quantity', async () => {
    const expressions = [
      "string(quantity(object.data.limit).isLessThan(quantity('1Gi')))",
      "string(isQuantity('1.5x'))",
      "string(quantity('1Gi').add(quantity('512Mi')).asInteger())",
      "string(quantity('1.5').asApproximateFloat())",
      "string(quantity('100m').compareTo(quantity('0.1')))",
    ];
    expect(await rendered('QuantityLibrary', expressions, { limit: '512Mi' })).toEqual(denial('QuantityLibrary', 'true false 1610612736 1.5 0'));
  });

  it('ip and cidr', async () => {
    const expressions = [
      "string(cidr('10.0.0.0/8').containsIP(ip(object.data.address)))",
      "string(ip('fe80::1').family())",
      "string(cidr('192.168.0.0/24').prefixLength())",
      "string(isIP('1.2.3'))",
      "string(cidr('192.168.1.0/24').masked())",
      "string(ip('127.0.0.1').isLoopback())",
    ];
    expect(await rendered('NetworkLibrary', expressions, { address: '10.1.2.3' })).toEqual(denial('NetworkLibrary', 'true 6 24 false 192.168.1.0/24 true'));
  });

  it('url', async () => {
    const expressions = [
      "url('https://example.com:8443/a%20b?x=1').getHost()",
      "url('https://example.com:8443/a%20b?x=1').getPort()",
      "url('https://example.com:8443/a%20b?x=1').getEscapedPath()",
      "url('https://example.com:8443/a%20b?x=1').getQuery()['x'][0]",
      "string(isURL('not a url'))",
    ];
    expect(await rendered('UrlLibrary', expressions)).toEqual(denial('UrlLibrary', 'example.com:8443 8443 /a%20b 1 false'));
  });

  it('format', async () => {
    const expressions = ["format.dns1123Label().validate('Not_OK').value()[0]", "string(format.named('dns1123Subdomain').value().validate('ok.example').hasValue())"];
    expect(await rendered('FormatLibrary', expressions)).toEqual(
      denial(
        'FormatLibrary',
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?') false",
      ),
    );
  });

  it('semver', async () => {
    const expressions = ["string(semver('1.2.3').isLessThan(semver('1.10.0')))", "string(semver('1.2.3').major())", "string(isSemver('v1.2'))", "string(isSemver('v1.2', true))"];
    expect(await rendered('SemverLibrary', expressions)).toEqual(denial('SemverLibrary', 'true 1 false true'));
  });
});

describe("cel-go's extensions and semantics", () => {
  it('two-variable comprehensions', async () => {
    const expressions = [
      "string(object.data.all(k, v, v != ''))",
      'string([1, 2, 3].existsOne(i, v, v == 2))',
      "string({'a': 1}.transformMap(k, v, v * 2)['a'])",
      "[1, 2].transformList(i, v, i + v).map(x, string(x)).join(',')",
    ];
    expect(await rendered('TwoVariableMacros', expressions, { a: '1' })).toEqual(denial('TwoVariableMacros', 'true true 2 1,3'));
  });

  it('strings count code points', async () => {
    const expressions = ["string('😀bc'.indexOf('b'))", "'😀bc'.substring(1)", "string(size('😀'))", "'ÀB'.lowerAscii()"];
    expect(await rendered('CodePoints', expressions)).toEqual(denial('CodePoints', '1 bc 1 Àb'));
  });

  it("int('') is cel-go's conversion error, which denies under failurePolicy Fail", async () => {
    const expression = 'int(object.data.count) > 0';
    expect(await runPolicy(policy('IntOfEmpty', expression), { object: configMap({ count: '' }) })).toEqual(
      denial('IntOfEmpty', `expression '${expression}' resulted in error: type conversion error from 'string' to 'int'`),
    );
  });

  it('an expression beyond the runtime cost limit per call is stopped with the API server error', async () => {
    const range = '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]';
    const expression = `${range}.all(a, ${range}.all(b, ${range}.all(c, ${range}.all(d, ${range}.all(e, ${range}.all(f, f >= 0))))))`;
    expect(await runPolicy(policy('TooCostly', expression), { object: configMap() })).toEqual(
      denial('TooCostly', `expression '${expression}' resulted in error: operation cancelled: actual cost limit exceeded`),
    );
  });
});

describe('the authorizer', () => {
  const asks = "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('get').allowed()";
  const secretsReader = policy('ReadsSecrets', asks);
  const answer = (decision: AuthorizerAnswer['decision']): AuthorizerAnswer[] => [{ verb: 'get', resource: 'secrets', namespace: 'team-a', decision }];

  it('answers from the rules the test declares', async () => {
    expect(await runPolicy(secretsReader, { object: configMap(), authorizer: answer('allow') })).toEqual(ALLOWED);
    expect(await runPolicy(secretsReader, { object: configMap(), authorizer: answer('deny') })).toEqual(denial('ReadsSecrets', `failed expression: ${asks}`));
  });

  it('is a one-line error naming the check when no rule answers it', async () => {
    await expect(runPolicy(secretsReader, { object: configMap() })).rejects.toMatchObject({
      name: 'AuthorizerNotDeclared',
      message:
        "the policy asks the authorizer about user 'test-user' verb 'get' on resource 'secrets' (group '') in namespace 'team-a' named '', which the test declares no answer for: add it to runPolicy's authorizer option, e.g. authorizer: [{ verb: 'get', resource: 'secrets', decision: 'allow' }]",
    });
  });
});
