/**
 * `@Conversion` options to a ResolvedConversion, every problem reported: used
 * by the decorator at runtime and by the generator on statically evaluated
 * arguments, as resolve.ts is for `@Webhook`.
 */
import { checkKeys, expectString, isPlainObject, type Report } from '../options/check.js';
import { stringWhere } from '../webhook/options/fields.js';
import { optionKeys } from '../webhook/options/resolve.js';
import { conversionPathProblem, isDnsLabel, isDnsSubdomain } from '../options/kubernetes-names.js';
import type { Problem } from '../problems.js';
import type { ConversionOptions, ResolvedConversion } from './types.js';

export const DEFAULT_CONVERSION_PATH = '/convert';
export const CONVERSION_OPTION_NAMES = ['group', 'kind', 'hub', 'path'] as const satisfies readonly (keyof ConversionOptions)[];

const KIND = /^[A-Z][A-Za-z0-9]*$/;
/** The version names the API server accepts for a CRD: v1, v1alpha1, v2beta3 … or any DNS label. */
const versionProblem = (version: string) => (isDnsLabel(version) ? undefined : `"${version}" is not a version name: a DNS label such as v1, v1beta1`);

export function resolveConversionOptions(raw: unknown): { conversion?: ResolvedConversion; problems: Problem[] } {
  const problems: Problem[] = [];
  const report: Report = (path, message) => problems.push({ path, message });
  if (!isPlainObject(raw)) {
    report([], '@Conversion expects an options object: { group, kind, hub }');
    return { problems };
  }
  const checked = checkKeys(raw, [], report, optionKeys(CONVERSION_OPTION_NAMES));
  const required = (name: 'group' | 'kind' | 'hub') => {
    if (raw[name] === undefined) checked([name], `${name} is required`);
    return raw[name] === undefined ? undefined : expectString(raw[name], [name], report);
  };
  const group = required('group');
  if (group !== undefined && !isDnsSubdomain(group)) report(['group'], `group "${group}" must be a DNS subdomain such as example.com: conversion webhooks are for custom resources`);
  const kind = required('kind');
  if (kind !== undefined && !KIND.test(kind)) report(['kind'], `kind "${kind}" must be the kind's name in UpperCamelCase, e.g. "Profile"`);
  const hubName = required('hub');
  const hub = hubName === undefined ? undefined : stringWhere(versionProblem)(hubName, ['hub'], report);
  const path = raw.path === undefined ? DEFAULT_CONVERSION_PATH : stringWhere(conversionPathProblem)(raw.path, ['path'], report);
  if (problems.length > 0 || group === undefined || kind === undefined || hub === undefined || path === undefined) return { problems };
  return { conversion: { group, kind, hub, path }, problems };
}
