/**
 * Bounds on the text a handler puts into an AdmissionResponse, so that a
 * handler cannot make the server send megabytes back. The API server passes a
 * webhook's denial message through whole (k8s.io/apiserver
 * pkg/admission/plugin/webhook/errors.ToStatusErr only prefixes it); the one
 * limit it puts on text a webhook returns is on warnings
 * (pkg/endpoints/filters/warning.go): all of them while they total at most
 * 4096 runes, past that each cut to 256 runes, and none once 4096 runes are
 * written. Warnings and status causes follow that rule here; the status
 * message is cut at the same 4096 runes. Runes are Unicode code points, and
 * nothing marks a cut, as in the API server.
 */
import type { AdmissionResponse, StatusCause } from './review.js';

export const MAX_TOTAL_RUNES = 4 * 1024;
export const MAX_ITEM_RUNES = 256;

export function limitResponse(response: AdmissionResponse): AdmissionResponse {
  if (response.warnings) response.warnings = keepLikeWarnings(unique(response.warnings.filter((warning) => warning !== '')), (text) => text, cutRunes);
  const status = response.status;
  if (status) {
    status.message = cutRunes(status.message, MAX_TOTAL_RUNES);
    const causes = status.details?.causes;
    if (causes) {
      status.details!.causes = keepLikeWarnings(
        causes,
        (cause) => cause.message ?? '',
        (cause, runes): StatusCause => ({
          ...cause,
          ...(cause.message !== undefined && { message: cutRunes(cause.message, runes) }),
          ...(cause.field !== undefined && { field: cutRunes(cause.field, runes) }),
        }),
      );
    }
  }
  return response;
}

function keepLikeWarnings<T>(items: readonly T[], textOf: (item: T) => string, cut: (item: T, runes: number) => T): T[] {
  let written = 0;
  let overflow = items.length;
  for (const [index, item] of items.entries()) {
    written += runeLength(textOf(item));
    if (written > MAX_TOTAL_RUNES) {
      overflow = index;
      break;
    }
  }
  if (overflow === items.length) return [...items];
  const kept = items.slice(0, overflow + 1).map((item) => cut(item, MAX_ITEM_RUNES));
  written = kept.reduce((sum, item) => sum + runeLength(textOf(item)), 0);
  for (const item of items.slice(overflow + 1)) {
    if (written >= MAX_TOTAL_RUNES) break;
    const short = cut(item, MAX_ITEM_RUNES);
    kept.push(short);
    written += runeLength(textOf(short));
  }
  return kept;
}

function unique(texts: readonly string[]): string[] {
  return [...new Set(texts)];
}

/** Code points in `text`, counted no further than past the total budget: more never changes a decision. */
function runeLength(text: string): number {
  if (text.length <= MAX_ITEM_RUNES) return [...text].length;
  let count = 0;
  for (const _point of text) if (++count > MAX_TOTAL_RUNES) break;
  return count;
}

function cutRunes(text: string, runes: number): string {
  if (text.length <= runes) return text;
  let count = 0;
  let end = 0;
  for (const point of text) {
    if (count === runes) return text.slice(0, end);
    count++;
    end += point.length;
  }
  return text;
}
