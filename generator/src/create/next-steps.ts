/**
 * What `shaper-gen create api` tells the user to do next. A kind with several
 * versions needs one marked as stored and, once their schemas differ, a
 * conversion between them (a `@Conversion` class, which `create conversion`
 * writes).
 */
import type { ApiPlan } from './api-plan.js';

export function nextSteps(plan: ApiPlan, manifests: string, crdFile: string, relative: (file: string) => string): string[] {
  const tests = plan.files.some((file) => file.path.endsWith('.test.ts')) ? "; npm test runs the webhooks' tests" : '';
  const steps = [`next: describe ${plan.kind}Spec and ${plan.kind}Status in ${relative(plan.kindFile)} (fields, @shaper: markers), then ${manifests} writes ${crdFile}${tests}`];
  if (plan.otherVersions.length > 0) steps.push(...multiVersionSteps(plan));
  return steps;
}

function multiVersionSteps(plan: ApiPlan): string[] {
  const versions = [...plan.otherVersions.map((v) => `${v.version} (${v.at})`), plan.version].join(', ');
  return [
    `  ${plan.kind} now has versions ${versions}: mark the one etcd stores with @shaper:storageversion on its interface; manifests refuses the CRD until exactly one is marked`,
    conversionStep(plan),
  ];
}

function conversionStep(plan: ApiPlan): string {
  return `  the versions are served with conversion: None (only apiVersion changes) until a @Conversion class converts them: once their schemas differ, shaper-gen create conversion --group ${plan.group} --kind ${plan.kind} --hub <version> writes one with its test (guide: conversion webhooks)`;
}
