{{/* oci-ccm.name is the chart's name, overridable with nameOverride. */}}
{{- define "oci-ccm.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* oci-ccm.fullname names the release's objects: the release name when it already holds
the chart's name, else "<release>-<chart>". */}}
{{- define "oci-ccm.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "oci-ccm.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "oci-ccm.serviceAccountName" -}}
{{- default (include "oci-ccm.fullname" .) .Values.serviceAccount.name }}
{{- end }}

{{- define "oci-ccm.selectorLabels" -}}
app.kubernetes.io/name: {{ include "oci-ccm.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "oci-ccm.labels" -}}
{{ include "oci-ccm.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{- define "oci-ccm.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/* oci-ccm.configSecret is the Secret holding cloud-provider.yaml. */}}
{{- define "oci-ccm.configSecret" -}}
{{- if .Values.config.existingSecret }}
{{- .Values.config.existingSecret }}
{{- else }}
{{- printf "%s-config" (include "oci-ccm.fullname" .) }}
{{- end }}
{{- end }}

{{- define "oci-ccm.webhookName" -}}
{{- printf "%s-webhook" (include "oci-ccm.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* oci-ccm.validate fails the render on values that cannot work, naming the value and what is
allowed, before anything reaches the cluster. */}}
{{- define "oci-ccm.validate" -}}
{{- if not .Values.clusterName }}
{{- fail "clusterName is required: this cluster's identity, unique among the clusters sharing the tenancy's compartments and subnets, never changed (config/README.md, \"Cluster identity\")" }}
{{- end }}
{{- if eq .Values.clusterName "kubernetes" }}
{{- fail "clusterName \"kubernetes\" is the framework's default, not an identity: choose a name no other cluster uses" }}
{{- end }}
{{- if and .Values.config.existingSecret .Values.config.inline }}
{{- fail "config: set either config.inline or config.existingSecret, not both" }}
{{- end }}
{{- if not (or .Values.config.existingSecret .Values.config.inline) }}
{{- fail "config: set config.inline (cloud-provider.yaml as values) or config.existingSecret (a Secret holding it under config.key)" }}
{{- end }}
{{- if and (gt (int .Values.replicas) 1) (not .Values.leaderElection.enabled) }}
{{- fail (printf "replicas: %d replicas need leaderElection.enabled=true, or they reconcile the same load balancers at once" (int .Values.replicas)) }}
{{- end }}
{{- if and .Values.webhook.enabled (not .Values.webhook.tls.secretName) }}
{{- fail "webhook.tls.secretName is required when webhook.enabled: a kubernetes.io/tls Secret with the webhook's serving certificate" }}
{{- end }}
{{- if not (has .Values.webhook.failurePolicy (list "Ignore" "Fail")) }}
{{- fail (printf "webhook.failurePolicy %q: allowed are Ignore (fail open, the default) and Fail" .Values.webhook.failurePolicy) }}
{{- end }}
{{- end }}

{{/* oci-ccm.webhookArgs are the flags that turn on the binary's validating webhook (the
binary's --help describes them; they are not the framework's own --webhook-* flags). The serving
certificate is mounted from webhook.tls.secretName at /etc/oci-ccm/webhook, as tls.crt and
tls.key, and re-read by the binary when the Secret changes. */}}
{{- define "oci-ccm.webhookArgs" -}}
- --validating-webhook-port={{ .Values.webhook.port }}
- --validating-webhook-cert-dir=/etc/oci-ccm/webhook
{{- end }}
