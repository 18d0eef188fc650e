/**
 * The kinds of Kubernetes' built-in resources, by API group and plural
 * resource, as discovery reports them. A kind's spelling (CronJob, not
 * Cronjob) is not in the resource's name, so the test kit infers the kind of
 * a test object without one only for these.
 */
const KINDS_BY_GROUP: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '': {
    bindings: 'Binding',
    componentstatuses: 'ComponentStatus',
    configmaps: 'ConfigMap',
    endpoints: 'Endpoints',
    events: 'Event',
    limitranges: 'LimitRange',
    namespaces: 'Namespace',
    nodes: 'Node',
    persistentvolumeclaims: 'PersistentVolumeClaim',
    persistentvolumes: 'PersistentVolume',
    pods: 'Pod',
    podtemplates: 'PodTemplate',
    replicationcontrollers: 'ReplicationController',
    resourcequotas: 'ResourceQuota',
    secrets: 'Secret',
    serviceaccounts: 'ServiceAccount',
    services: 'Service',
  },
  'admissionregistration.k8s.io': {
    mutatingadmissionpolicies: 'MutatingAdmissionPolicy',
    mutatingadmissionpolicybindings: 'MutatingAdmissionPolicyBinding',
    mutatingwebhookconfigurations: 'MutatingWebhookConfiguration',
    validatingadmissionpolicies: 'ValidatingAdmissionPolicy',
    validatingadmissionpolicybindings: 'ValidatingAdmissionPolicyBinding',
    validatingwebhookconfigurations: 'ValidatingWebhookConfiguration',
  },
  'apiextensions.k8s.io': { customresourcedefinitions: 'CustomResourceDefinition' },
  'apiregistration.k8s.io': { apiservices: 'APIService' },
  apps: {
    controllerrevisions: 'ControllerRevision',
    daemonsets: 'DaemonSet',
    deployments: 'Deployment',
    replicasets: 'ReplicaSet',
    statefulsets: 'StatefulSet',
  },
  autoscaling: { horizontalpodautoscalers: 'HorizontalPodAutoscaler' },
  batch: { cronjobs: 'CronJob', jobs: 'Job' },
  'certificates.k8s.io': { certificatesigningrequests: 'CertificateSigningRequest', clustertrustbundles: 'ClusterTrustBundle' },
  'coordination.k8s.io': { leasecandidates: 'LeaseCandidate', leases: 'Lease' },
  'discovery.k8s.io': { endpointslices: 'EndpointSlice' },
  'events.k8s.io': { events: 'Event' },
  'flowcontrol.apiserver.k8s.io': { flowschemas: 'FlowSchema', prioritylevelconfigurations: 'PriorityLevelConfiguration' },
  'networking.k8s.io': {
    ingressclasses: 'IngressClass',
    ingresses: 'Ingress',
    ipaddresses: 'IPAddress',
    networkpolicies: 'NetworkPolicy',
    servicecidrs: 'ServiceCIDR',
  },
  'node.k8s.io': { runtimeclasses: 'RuntimeClass' },
  policy: { poddisruptionbudgets: 'PodDisruptionBudget' },
  'rbac.authorization.k8s.io': { clusterrolebindings: 'ClusterRoleBinding', clusterroles: 'ClusterRole', rolebindings: 'RoleBinding', roles: 'Role' },
  'resource.k8s.io': {
    deviceclasses: 'DeviceClass',
    resourceclaims: 'ResourceClaim',
    resourceclaimtemplates: 'ResourceClaimTemplate',
    resourceslices: 'ResourceSlice',
  },
  'scheduling.k8s.io': { priorityclasses: 'PriorityClass' },
  'storage.k8s.io': {
    csidrivers: 'CSIDriver',
    csinodes: 'CSINode',
    csistoragecapacities: 'CSIStorageCapacity',
    storageclasses: 'StorageClass',
    volumeattachments: 'VolumeAttachment',
    volumeattributesclasses: 'VolumeAttributesClass',
  },
};

/** The kind of a built-in resource (`batch`, `cronjobs` → `CronJob`), or undefined. */
export function builtinKind(group: string, resource: string): string | undefined {
  const kinds = KINDS_BY_GROUP[group];
  return kinds && Object.hasOwn(kinds, resource) ? kinds[resource] : undefined;
}
