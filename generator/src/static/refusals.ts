/**
 * What a policy declares that static admission cannot hold, as the API
 * server's manifest loader refuses it (k8s.io/apiserver
 * pkg/admission/plugin/policy/manifest/loader: no paramKind, no paramRef;
 * names are DNS subdomains with the static suffix). Reported at the option's
 * `file:line:col` by the scan, so nothing is written.
 */
import type { Problem } from 'shaper-gen/internal/generator';
import type { AnyResolvedPolicy } from '../policy/expressions.js';
import { MAX_NAME_LENGTH, staticName, STATIC_SUFFIX } from './names.js';

const NO_PARAMETERS = 'static admission has no parameter objects (the API server loads static policies before any object exists)';

export function staticPolicyProblems(policy: AnyResolvedPolicy): Problem[] {
  const problems: Problem[] = [];
  if (policy.paramKind) {
    problems.push({ path: ['paramKind'], message: `${NO_PARAMETERS}: write the parameters into the policy's expressions or \`variables\` and remove paramKind, or leave --static out` });
  }
  if (policy.paramRef) {
    problems.push({ path: ['paramRef'], message: `${NO_PARAMETERS}: remove paramRef from the binding, or leave --static out` });
  }
  if (staticName(policy.name).length > MAX_NAME_LENGTH) {
    problems.push({
      path: ['name'],
      message: `"${policy.name}" with the static suffix ${STATIC_SUFFIX} is longer than ${MAX_NAME_LENGTH} characters: set a \`name\` of at most ${MAX_NAME_LENGTH - STATIC_SUFFIX.length}`,
    });
  }
  return problems;
}
