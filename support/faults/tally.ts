/** Turns fault answers (and the oracle's verdicts on them) into counts per class and HTTP status, and the list of what went wrong. */
import type { ResponseCase, ResponseVerdict } from '../oracle.ts';
import type { FaultCase } from './corpus.ts';
import type { Answer } from './send.ts';

export interface FaultTally {
  cases: number;
  /** kind → HTTP status → count. */
  statuses: Record<string, Record<string, number>>;
  transportErrors: { kind: string; error: string }[];
  /** Answers that are not a JSON AdmissionReview with a response. */
  unparseable: { kind: string; status: number; text: string }[];
  /** Answers the API machinery refuses or reads differently (strict decode, round trip, uid, patch). */
  rejectedByOracle: { kind: string; problem: string }[];
  /** Answers in another apiVersion than a readable request asked in. */
  wrongApiVersion: { kind: string; asked: string; answered?: string }[];
  /** Answers to a body that is not JSON carrying a uid that body does not hold. */
  foreignUid: { kind: string; uid: string }[];
}

/**
 * The oracle's input for each answer: the uid the API server would check is
 * the body's own, or, for a body that is not JSON, the answer's (whether that
 * uid is one the body holds is the tally's foreignUid check).
 */
export function oracleCases(cases: readonly FaultCase[], answers: readonly Answer[]): ResponseCase[] {
  return cases.map((fault, i) => ({
    body: answers[i]!.text,
    uid: fault.uid ?? answerUid(answers[i]!),
    mutating: fault.path === '/mutate-profile',
    webhook: `${fault.path.slice(1)}.example.io`,
    // Only a patch needs the object; a refused body may be too deep to serialise again.
    object: answers[i]!.text.includes('"patch"') ? readRequest(fault).object : undefined,
  }));
}

function answerUid(answer: Answer): string {
  try {
    const uid = JSON.parse(answer.text)?.response?.uid;
    return typeof uid === 'string' ? uid : '';
  } catch {
    return '';
  }
}

const REVIEW_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'];

/** What the API server would send along with the case: its object (for patches) and its review version. */
export function readRequest(fault: FaultCase): { object?: unknown; apiVersion?: string } {
  try {
    const parsed = JSON.parse(fault.body.toString('utf8'));
    const object = parsed?.request?.object;
    return {
      object: typeof object === 'object' && object !== null && !Array.isArray(object) ? object : undefined,
      apiVersion: REVIEW_VERSIONS.includes(parsed?.apiVersion) ? parsed.apiVersion : undefined,
    };
  } catch {
    return {};
  }
}

export function tally(cases: readonly FaultCase[], answers: readonly Answer[], verdicts: readonly ResponseVerdict[]): FaultTally {
  const result: FaultTally = { cases: cases.length, statuses: {}, transportErrors: [], unparseable: [], rejectedByOracle: [], wrongApiVersion: [], foreignUid: [] };
  cases.forEach((fault, i) => {
    const answer = answers[i]!;
    const byStatus = (result.statuses[fault.kind] ??= {});
    const status = answer.transportError ? 'transport error' : String(answer.status);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if (answer.transportError) {
      result.transportErrors.push({ kind: fault.kind, error: answer.transportError });
      return;
    }
    if (!isReview(answer.text)) result.unparseable.push({ kind: fault.kind, status: answer.status, text: answer.text.slice(0, 200) });
    const verdict = verdicts[i]!;
    for (const problem of verdict.problems) result.rejectedByOracle.push({ kind: fault.kind, problem });
    const uid = answerUid(answer);
    if (fault.uid === undefined && uid !== '' && !fault.body.toString('utf8').includes(`"${uid}"`)) result.foreignUid.push({ kind: fault.kind, uid });
    const asked = readRequest(fault).apiVersion;
    if (asked && verdict.apiVersion !== asked) result.wrongApiVersion.push({ kind: fault.kind, asked, answered: verdict.apiVersion });
  });
  return result;
}

function isReview(text: string): boolean {
  try {
    const parsed = JSON.parse(text);
    return parsed?.kind === 'AdmissionReview' && typeof parsed.response === 'object' && parsed.response !== null;
  } catch {
    return false;
  }
}
