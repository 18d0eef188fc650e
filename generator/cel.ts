/**
 * matchConditions compiled as the API server compiles them before it stores
 * a webhook configuration (k8s.io/apiserver pkg/admission/plugin/cel): the
 * same variables with the same types, and the result must be exactly bool.
 * The CEL library (@marcbachmann/cel-js) is loaded only when some webhook has
 * matchConditions, so that a generator run without them does not pay for it.
 */
import { createRequire } from 'node:module';
import type { MatchCondition } from '../runtime/webhook-options.js';

export interface CelProblem {
  /** Index into matchConditions. */
  readonly index: number;
  /** Where in the expression the problem is (0-based). */
  readonly offset: number;
  readonly message: string;
}

/**
 * Functions of Kubernetes' own CEL libraries (k8s.io/apiserver pkg/cel/library:
 * authz, urls, quantity, ip/cidr, semver, lists, regex, format, sets) that this
 * library does not know: an expression that calls one is passed through
 * unchecked rather than refused, since the API server accepts it.
 */
const KUBERNETES_LIBRARY_FUNCTIONS = new Set([
  'path', 'group', 'serviceAccount', 'resource', 'subresource', 'namespace', 'name', 'check', 'allowed', 'reason', 'errored', 'error', 'fieldSelector', 'labelSelector',
  'url', 'isURL', 'getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath', 'getQuery',
  'quantity', 'isQuantity', 'sign', 'isGreaterThan', 'isLessThan', 'compareTo', 'add', 'sub', 'asInteger', 'asApproximateFloat', 'isInteger',
  'ip', 'isIP', 'cidr', 'isCIDR', 'family', 'isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast', 'containsIP', 'containsCIDR', 'masked', 'prefixLength', 'isCanonical',
  'semver', 'isSemver', 'major', 'minor', 'patch',
  'isSorted', 'sum', 'min', 'max', 'indexOf', 'lastIndexOf', 'find', 'findAll', 'format', 'validate', 'named',
  'contains', 'equivalent', 'intersects', 'escapeKey', 'encode', 'decode', 'charAt', 'quote', 'reverse', 'join', 'split', 'replace', 'substring', 'trim', 'upperAscii', 'lowerAscii',
]);
const UNKNOWN_FUNCTION = /^found no matching overload for '(?:[\w.<>, ]+\.)?(\w+)\(/;

interface CheckResult {
  valid: boolean;
  type?: string;
  error?: { name: string; summary: string; range?: { start: number; end: number } };
}
interface CelEnvironment {
  registerVariable(declaration: object | string, type?: string): CelEnvironment;
  check(expression: string): CheckResult;
}

let environment: CelEnvironment | undefined;

/** The variables a webhook's matchConditions see, typed as kube-apiserver declares them (no params for webhooks). */
function kubernetesEnvironment(): CelEnvironment {
  if (environment) return environment;
  // Synchronous require of an ES module (Node ≥ 22.12): loaded on first use only.
  const { Environment } = createRequire(import.meta.url)('@marcbachmann/cel-js') as { Environment: new () => CelEnvironment };
  const gvk = { group: 'string', version: 'string', kind: 'string' };
  const gvr = { group: 'string', version: 'string', resource: 'string' };
  environment = new Environment()
    .registerVariable('object', 'dyn')
    .registerVariable('oldObject', 'dyn')
    .registerVariable('authorizer', 'dyn')
    .registerVariable('authorizer.requestResource', 'dyn')
    .registerVariable({
      name: 'request',
      schema: {
        kind: gvk, resource: gvr, subResource: 'string', requestKind: gvk, requestResource: gvr, requestSubResource: 'string',
        name: 'string', namespace: 'string', operation: 'string',
        userInfo: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' },
        dryRun: 'bool', options: 'dyn',
      },
    })
    .registerVariable({
      name: 'namespaceObject',
      schema: {
        metadata: {
          name: 'string', generateName: 'string', namespace: 'string', labels: 'map<string, string>', annotations: 'map<string, string>', UID: 'string',
          creationTimestamp: 'google.protobuf.Timestamp', deletionGracePeriodSeconds: 'int', deletionTimestamp: 'google.protobuf.Timestamp',
          generation: 'int', resourceVersion: 'string', finalizers: 'list<string>',
        },
        spec: { finalizers: 'list<string>' },
        status: { conditions: 'list<dyn>', phase: 'string' },
      },
    });
  return environment;
}

/** Every matchCondition expression that the API server would refuse to store, with where in the expression. */
export function checkMatchConditions(conditions: readonly MatchCondition[]): CelProblem[] {
  const problems: CelProblem[] = [];
  conditions.forEach(({ expression }, index) => {
    const leading = expression.length - expression.trimStart().length;
    const result = kubernetesEnvironment().check(expression.trim());
    if (result.error) {
      const unknown = UNKNOWN_FUNCTION.exec(result.error.summary)?.[1];
      if (unknown && KUBERNETES_LIBRARY_FUNCTIONS.has(unknown)) return;
      const offset = leading + (result.error.range?.start ?? 0);
      problems.push({ index, offset, message: `matchConditions[${index}].expression: CEL compilation failed at column ${offset + 1}: ${result.error.summary}` });
    } else if (result.type !== 'bool') {
      problems.push({ index, offset: leading, message: `matchConditions[${index}].expression must evaluate to bool but got ${result.type}` });
    }
  });
  return problems;
}
