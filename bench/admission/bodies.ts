/** Realistic AdmissionReview bodies for the admission benchmark. */

function managedFields(manager: string) {
  return [
    {
      manager,
      operation: 'Update',
      apiVersion: 'shaper.io/v1alpha1',
      time: '2026-11-22T10:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app.kubernetes.io/name': {}, 'f:team': {} } }, 'f:spec': { '.': {}, 'f:description': {} } },
    },
  ];
}

function review(uid: string, kind: string, resource: string, object: Record<string, unknown>) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'shaper.io', version: 'v1alpha1', kind },
      resource: { group: 'shaper.io', version: 'v1alpha1', resource },
      requestKind: { group: 'shaper.io', version: 'v1alpha1', kind },
      requestResource: { group: 'shaper.io', version: 'v1alpha1', resource },
      name: (object.metadata as { name: string }).name,
      namespace: 'team-a',
      operation: 'CREATE',
      userInfo: { username: 'system:serviceaccount:team-a:deployer', uid: 'b2c3', groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'] },
      object,
      oldObject: null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', fieldManager: 'kubectl-client-side-apply' },
    },
  };
}

function metadata(name: string, extraAnnotations: Record<string, string> = {}) {
  return {
    name,
    namespace: 'team-a',
    uid: '5c0f1a52-7d0e-4e38-9b5f-0f1d2c3b4a59',
    creationTimestamp: null,
    labels: { 'app.kubernetes.io/name': 'checkout', 'app.kubernetes.io/part-of': 'shop', team: 'team-a' },
    annotations: {
      'kubectl.kubernetes.io/last-applied-configuration':
        '{"apiVersion":"shaper.io/v1alpha1","kind":"Profile","metadata":{"annotations":{},"name":"checkout","namespace":"team-a"},"spec":{"description":"Checkout service shaping profile"}}',
      ...extraAnnotations,
    },
    managedFields: managedFields('kubectl-client-side-apply'),
  };
}

export function profileReview(uid = '705ab4f5-6393-11e8-b7cc-42010a800002', descriptionBytes = 120) {
  return review(uid, 'Profile', 'profiles', {
    apiVersion: 'shaper.io/v1alpha1',
    kind: 'Profile',
    metadata: metadata('checkout'),
    spec: { description: 'Checkout service shaping profile. '.repeat(Math.ceil(descriptionBytes / 34)).slice(0, descriptionBytes), resources: { cpu: '500m', memory: '256Mi' } },
  });
}

export function assignmentReview(uid = '805ab4f5-6393-11e8-b7cc-42010a800003') {
  return review(uid, 'Assignment', 'assignments', {
    apiVersion: 'shaper.io/v1alpha1',
    kind: 'Assignment',
    metadata: metadata('checkout-gold'),
    spec: {
      profileRef: { name: 'gold' },
      selector: { matchLabels: { 'app.kubernetes.io/name': 'checkout' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['frontend', 'backend'] }] },
      weight: 40,
    },
  });
}

/** A ~200 KB Profile: a large object, as ConfigMap-heavy or annotation-heavy resources are. */
export function largeProfileReview() {
  const annotations: Record<string, string> = {};
  for (let i = 0; i < 400; i++) annotations[`example.com/note-${i}`] = 'x'.repeat(480);
  const body = profileReview('905ab4f5-6393-11e8-b7cc-42010a800004');
  (body.request.object as { metadata: { annotations: Record<string, string> } }).metadata.annotations = {
    ...(body.request.object as { metadata: { annotations: Record<string, string> } }).metadata.annotations,
    ...annotations,
  };
  return body;
}
