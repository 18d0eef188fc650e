/**
 * The webhook entry that stands in for a test's own policy where serve enforces it, as the chart renders one for a
 * generated policy: ConfigMap CREATEs carrying the policy's label, the server at `url` trusted through `caBundle`.
 */
export function servedEntry(name: string, url: string, caBundle: string, label: string, mutating = false): object {
  return {
    name,
    admissionReviewVersions: ['v1'],
    clientConfig: { url, caBundle },
    failurePolicy: 'Fail',
    sideEffects: 'None',
    timeoutSeconds: 10,
    rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], scope: '*' }],
    objectSelector: { matchLabels: { [label]: 'yes' } },
    ...(mutating && { reinvocationPolicy: 'Never' }),
  };
}
