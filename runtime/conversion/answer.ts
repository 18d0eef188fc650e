/**
 * One ConversionReview from text to answer, without HTTP: decoded, every
 * object converted, or a Failure naming why. The endpoint adds the transport,
 * the heap budget, metrics and the log.
 */
import { convertObjects, ConversionFailure, type ConversionsByKind, type ConvertedObject } from './convert.js';
import { convertedReview, decodeConversionReview, failedReview, type ConversionReview } from './review.js';

export type ConversionStep = NonNullable<ConvertedObject['step']>;

export interface ConversionAnswer {
  readonly review: ConversionReview;
  readonly uid: string;
  /** What each converted object went through (Success only). */
  readonly steps: readonly ConversionStep[];
  /** Why the review failed; `malformed` when it could not be read at all. */
  readonly failure?: { readonly message: string; readonly malformed: boolean; readonly thrown?: unknown };
}

export function answerConversionReview(conversions: ConversionsByKind, body: string): ConversionAnswer {
  const decoded = decodeConversionReview(body);
  if (!decoded.ok) return { review: failedReview(decoded, decoded.error), uid: decoded.uid, steps: [], failure: { message: decoded.error, malformed: true } };
  const { apiVersion, request } = decoded;
  try {
    const converted = convertObjects(conversions, request.objects, request.desiredAPIVersion);
    return {
      review: convertedReview(
        apiVersion,
        request.uid,
        converted.map((entry) => entry.object),
      ),
      uid: request.uid,
      steps: converted.flatMap((entry) => (entry.step ? [entry.step] : [])),
    };
  } catch (error) {
    if (!(error instanceof ConversionFailure)) throw error;
    return { review: failedReview({ apiVersion, uid: request.uid }, error.message), uid: request.uid, steps: [], failure: { message: error.message, malformed: false, thrown: error.thrown } };
  }
}
