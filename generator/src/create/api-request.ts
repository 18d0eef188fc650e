/**
 * `shaper-gen create api`'s flags checked: the group, version, kind and
 * plural by the rules the CRD scan applies (crd/api-names.ts), each refusal
 * one line naming the flag.
 */
import type { CreateApiFlags } from 'shaper-gen/internal/generator';
import { groupProblem, isDns1035Label, kindProblem, newVersionProblem, pluralize } from '../crd/api-names.js';
import type { Scope } from '../crd/types.js';

export class CreateApiError extends Error {}

export interface ApiRequest {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Given with --plural; else the existing kind's, or the kind's English plural. */
  readonly plural?: string;
  /** Given with --cluster or --namespaced; else the existing kind's, or Namespaced. */
  readonly scope?: Scope;
  readonly validator: boolean;
  readonly defaulter: boolean;
  /** --dir as given, relative to the working directory. */
  readonly dir?: string;
}

export function checkApiRequest(flags: CreateApiFlags): ApiRequest {
  const problem =
    flagProblem('--group', groupProblem(flags.group)) ??
    flagProblem('--version', newVersionProblem(flags.version)) ??
    flagProblem('--kind', kindProblem(flags.kind)) ??
    (flags.plural === undefined || isDns1035Label(flags.plural)
      ? undefined
      : `--plural: the resource name ${JSON.stringify(flags.plural)} must be a lower-case DNS label starting with a letter, like ${JSON.stringify(pluralize(flags.kind.toLowerCase()))}`);
  if (problem) throw new CreateApiError(problem);
  return {
    group: flags.group,
    version: flags.version,
    kind: flags.kind,
    ...(flags.plural !== undefined && { plural: flags.plural }),
    ...(flags.cluster ? { scope: 'Cluster' as const } : flags.namespaced ? { scope: 'Namespaced' as const } : {}),
    validator: flags.validator ?? false,
    defaulter: flags.defaulter ?? false,
    ...(flags.dir !== undefined && { dir: flags.dir }),
  };
}

function flagProblem(flag: string, problem: string | undefined): string | undefined {
  return problem === undefined ? undefined : `${flag}: ${problem}`;
}
