/**
 * What `authorizer` answers in a policy the server enforces: the API
 * server's own authorizer, asked with a SubjectAccessReview per check the
 * plugin makes, its decision and reason declared to the engine, which then
 * evaluates the policy again (a policy may make further checks with what the
 * first ones answered).
 */
import type { AdmitAnswer, AdmitRequest, AuthorizerCheck, AuthorizerRule } from '../../cel/engine-contract.js';
import type { ApiConnection } from '../../kube/api-connection.js';
import type { RbacRule } from '../../webhook/rbac-options.js';

/** What the server's ServiceAccount needs to ask them (granted where a served policy calls `authorizer`). */
export const ACCESS_REVIEW_RULE: RbacRule = { groups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] };

/** Whether a policy's CEL calls the authorizer (its objects' text names it). */
export function callsAuthorizer(policy: object): boolean {
  return /\bauthorizer\b/.test(JSON.stringify(policy));
}

/** How many times a policy is evaluated again for checks its last evaluation made first. */
const MAX_ROUNDS = 4;
const REVIEW_TIMEOUT_MS = 5_000;

interface SubjectAccessReviewStatus {
  readonly allowed?: boolean;
  readonly denied?: boolean;
  readonly reason?: string;
}

export async function admitWithAccessReviews(admit: (request: AdmitRequest) => AdmitAnswer, request: AdmitRequest, connection: () => ApiConnection): Promise<AdmitAnswer> {
  let answer = admit(request);
  const rules: AuthorizerRule[] = [];
  for (let round = 0; round < MAX_ROUNDS && (answer.unansweredAuthorizerChecks?.length ?? 0) > 0; round++) {
    rules.push(...(await Promise.all(answer.unansweredAuthorizerChecks!.map((check) => reviewAccess(connection(), check)))));
    answer = admit({ ...request, input: { ...request.input, authorizer: rules } });
  }
  return answer;
}

async function reviewAccess(connection: ApiConnection, check: AuthorizerCheck): Promise<AuthorizerRule> {
  const { user, groups, uid, extra, verb, group, resource, subresource, namespace, name, path } = check;
  const attributes = check.resourceRequest ? { resourceAttributes: { verb, group, resource, subresource, namespace, name } } : { nonResourceAttributes: { verb, path } };
  const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups, uid, extra, ...attributes } };
  const { status, body } = await connection.json('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: review, idleTimeoutMs: REVIEW_TIMEOUT_MS });
  if (status !== 201 && status !== 200) throw new Error(`SubjectAccessReview for ${user} ${verb}: HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  const answer = (body as { status?: SubjectAccessReviewStatus }).status ?? {};
  const decision = answer.allowed ? 'allow' : answer.denied ? 'deny' : 'noOpinion';
  return { user, verb, group, resource, subresource, namespace, name, path, decision, ...(answer.reason && { reason: answer.reason }) };
}
