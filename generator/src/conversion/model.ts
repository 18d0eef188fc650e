/** The conversion webhook of each kind, as the CRD template renders it. */
import path from 'node:path';
import { CONVERSION_REVIEW_API_VERSIONS } from 'shaper-gen/internal/generator';
import type { DecoratedConversion } from './scan-conversion.js';

export interface ConversionModel {
  /** `ClassName in file`, written beside the stanza. */
  readonly source: string;
  readonly path: string;
  /** The ConversionReview versions `serve` answers, preferred first: the API server sends the first it knows. */
  readonly reviewVersions: readonly string[];
}

/** By `group/Kind`. */
export type ConversionModels = ReadonlyMap<string, ConversionModel>;

export function conversionModels(conversions: readonly DecoratedConversion[], root: string): ConversionModels {
  return new Map(
    conversions.map(({ className, file, conversion }) => [
      `${conversion.group}/${conversion.kind}`,
      {
        source: `${className} in ${path.relative(root, file).split(path.sep).join('/')}`,
        path: conversion.path,
        reviewVersions: CONVERSION_REVIEW_API_VERSIONS.map((version) => version.split('/')[1]!),
      },
    ]),
  );
}
