{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "shaper-webhooks.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Resource name prefix: the release name, plus the chart name unless the release name contains it. */}}
{{- define "shaper-webhooks.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "shaper-webhooks.selectorLabels" -}}
app.kubernetes.io/name: {{ include "shaper-webhooks.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "shaper-webhooks.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "shaper-webhooks.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "shaper-webhooks.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "shaper-webhooks.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Where the webhooks' CA bundle comes from: "cert-manager" (its cainjector), "self-managed" (the server writes it),
or "values" (webhook.caBundle, with a serving-cert Secret you create). The generated templates read it.
*/}}
{{- define "shaper-webhooks.caSource" -}}
{{- if eq .Values.certificates.mode "self-managed" }}self-managed
{{- else if .Values.certManager.enabled }}cert-manager
{{- else }}values
{{- end }}
{{- end }}

{{/* The Secret and the Lease of self-managed certificates: read by the server (ServerConfig) and granted to it (rbac.yaml). */}}
{{- define "shaper-webhooks.selfManagedSecret" -}}
{{ include "shaper-webhooks.fullname" . }}-certificates
{{- end }}
{{- define "shaper-webhooks.selfManagedLease" -}}
{{ include "shaper-webhooks.fullname" . }}-certificate-issuer
{{- end }}

{{/* The CRDs whose conversion webhook the server answers, when this release installs them: self-managed certificates write their caBundle. */}}
{{- define "shaper-webhooks.selfManagedCrds" -}}
{{- if .Values.crds.install }}{{ include "shaper-webhooks.conversionCrds" . }}{{ end }}
{{- end }}

{{/* Where the serving-cert Secret is mounted: controller-runtime's default cert dir. */}}
{{- define "shaper-webhooks.certDir" -}}
/tmp/k8s-webhook-server/serving-certs
{{- end }}

{{/*
The ServerConfig `shaper-gen serve` reads. expectedPaths comes from the generated
_webhook-paths.tpl, so the server refuses readiness if the image lacks a handler
that the webhook configurations call.
*/}}
{{- define "shaper-webhooks.serverConfig" -}}
{{- $s := .Values.server -}}
apiVersion: shaper-gen.io/v1alpha1
kind: ServerConfig
handlers:
  {{- toYaml $s.handlers | nindent 2 }}
expectedPaths:
  {{- include "shaper-webhooks.webhookPaths" . | nindent 2 }}
workers: {{ include "shaper-webhooks.workers" . }}
webhook:
  port: {{ $s.ports.webhook }}
  certDir: {{ include "shaper-webhooks.certDir" . }}
  certName: tls.crt
  keyName: tls.key
  clientCAName: {{ $s.clientCAName | quote }}
  tlsMinVersion: {{ $s.tlsMinVersion | quote }}
  cipherSuites: {{- toYaml $s.cipherSuites | nindent 4 }}
  maxRequestBytes: {{ int64 $s.maxRequestBytes }}
  maxConnections: {{ int64 $s.maxConnections }}
  maxHandshakes: {{ int64 $s.maxHandshakes }}
{{- if eq .Values.certificates.mode "self-managed" }}
{{- $fullname := include "shaper-webhooks.fullname" . }}
{{- $sm := .Values.certificates.selfManaged }}
certificates:
  mode: self-managed
  namespace: {{ .Release.Namespace }}
  secretName: {{ include "shaper-webhooks.selfManagedSecret" . }}
  leaseName: {{ include "shaper-webhooks.selfManagedLease" . }}
  dnsNames:
    - {{ $fullname }}.{{ .Release.Namespace }}.svc
    - {{ $fullname }}.{{ .Release.Namespace }}.svc.cluster.local
  serviceName: {{ $fullname }}
  webhookConfigurations:
    - {{ $fullname }}
  conversionCrds: {{- with include "shaper-webhooks.selfManagedCrds" . }}{{ . | nindent 4 }}{{ else }} []{{ end }}
  caValiditySeconds: {{ mul $sm.caValidityHours 3600 }}
  servingValiditySeconds: {{ mul $sm.servingValidityHours 3600 }}
  checkSeconds: {{ $sm.checkSeconds }}
{{- end }}
health:
  port: {{ $s.ports.health }}
  stallSeconds: {{ $s.livenessStallSeconds }}
metrics:
  port: {{ $s.ports.metrics }}
  gcDurations: {{ $s.metrics.gcDurations }}
shutdown:
  drainSeconds: {{ $s.shutdown.drainSeconds }}
  timeoutSeconds: {{ $s.shutdown.timeoutSeconds }}
log:
  level: {{ $s.log.level }}
{{- with include "shaper-webhooks.servedPolicies" . | trim }}
policies:
  served:
    {{- . | nindent 4 }}
{{- end }}
{{- end }}

{{/*
Processes serving the webhook port: server.workers, or when it is 0 one per whole CPU of
resources.limits.cpu (at least 1), and 1 without a CPU limit: a pod without a limit on a
large node must not fork one worker per host core.
*/}}
{{- define "shaper-webhooks.workers" -}}
{{- $workers := int .Values.server.workers -}}
{{- if eq $workers 0 -}}
{{- $cpu := dig "limits" "cpu" "" .Values.resources | toString -}}
{{- if not $cpu }}{{ $workers = 1 }}
{{- else if hasSuffix "m" $cpu }}{{ $workers = max 1 (div (trimSuffix "m" $cpu | atoi) 1000) }}
{{- else }}{{ $workers = max 1 (float64 $cpu | floor | int) }}{{ end -}}
{{- end -}}
{{- $workers -}}
{{- end -}}

{{/*
NODE_OPTIONS: nodeOptions, plus an old-space heap sized from resources.limits.memory
less nodeMemoryReserveMiB (Node itself, buffers, TLS, the young generation) per process;
with server.workers above 1, 64 Mi for the primary and an equal share per worker. The
server keeps what the heap leaves for reviews in flight and queues or refuses
reviews beyond it, so the container stays inside its limit.
*/}}
{{- define "shaper-webhooks.nodeOptions" -}}
{{- $options := list -}}
{{- with .Values.nodeOptions }}{{ $options = append $options . }}{{ end -}}
{{- $limit := dig "limits" "memory" "" .Values.resources | toString -}}
{{- if and $limit (not (contains "max-old-space-size" .Values.nodeOptions)) -}}
{{- $mib := include "shaper-webhooks.mebibytes" (dict "value" $limit "field" "resources.limits.memory") | int -}}
{{- $workers := include "shaper-webhooks.workers" . | int -}}
{{- $primary := ternary 0 64 (eq $workers 1) -}}
{{- $heap := div (sub (sub $mib $primary) (mul .Values.nodeMemoryReserveMiB $workers)) $workers -}}
{{- if lt $heap 64 }}{{ fail (printf "resources.limits.memory %s leaves %d MiB of heap per worker (%d worker(s), nodeMemoryReserveMiB %d each%s): raise the limit" $limit $heap $workers (int .Values.nodeMemoryReserveMiB) (ternary "" ", 64 Mi for the primary" (eq $workers 1))) }}{{ end -}}
{{- $options = append $options (printf "--max-old-space-size=%d" $heap) -}}
{{- end -}}
{{- join " " $options -}}
{{- end }}

{{/*
A memory quantity written in Mi or Gi, in MiB; anything else fails with the field's name.
Called with (dict "value" <quantity> "field" <values key>).
*/}}
{{- define "shaper-webhooks.mebibytes" -}}
{{- $value := .value | toString -}}
{{- if hasSuffix "Gi" $value }}{{ mul (trimSuffix "Gi" $value | atoi) 1024 }}
{{- else if hasSuffix "Mi" $value }}{{ trimSuffix "Mi" $value | atoi }}
{{- else }}{{ fail (printf "%s %q: write it in Mi or Gi, so that the chart can size the heap from it" .field $value) }}{{ end -}}
{{- end }}

{{/*
The container's resources: .Values.resources, and where the server enforces some policy
itself (policies.served), policies.engineMemoryMiB more memory per serving process for the
CEL engine, which lives outside V8's heap: the heap stays sized from resources.limits.memory.
*/}}
{{- define "shaper-webhooks.resources" -}}
{{- $resources := deepCopy (.Values.resources | default dict) -}}
{{- if include "shaper-webhooks.servedPolicies" . | trim -}}
{{- $extra := mul (int .Values.policies.engineMemoryMiB) (include "shaper-webhooks.workers" . | int) -}}
{{- range $kind := list "limits" "requests" -}}
{{- $amounts := index $resources $kind | default dict -}}
{{- with $amounts.memory -}}
{{- $_ := set $amounts "memory" (printf "%dMi" (add (include "shaper-webhooks.mebibytes" (dict "value" . "field" (printf "resources.%s.memory" $kind)) | int) $extra)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml $resources -}}
{{- end }}
