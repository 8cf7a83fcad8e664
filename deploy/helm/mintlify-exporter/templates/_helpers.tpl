{{/* The chart's name. */}}
{{- define "mintlify-exporter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The objects' name. */}}
{{- define "mintlify-exporter.fullname" -}}
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

{{/* Labels that select the pod. */}}
{{- define "mintlify-exporter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mintlify-exporter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "mintlify-exporter.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "mintlify-exporter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The image reference. */}}
{{- define "mintlify-exporter.image" -}}
{{- $repo := .Values.image.repository }}
{{- if .Values.image.registry }}{{ $repo = printf "%s/%s" .Values.image.registry $repo }}{{ end }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repo .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repo (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The service account's name. */}}
{{- define "mintlify-exporter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "mintlify-exporter.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Secret holding the API key, and its key; fails without one. */}}
{{- define "mintlify-exporter.keySecret" -}}
{{- if and .Values.apiKey.value .Values.apiKey.existingSecret.name }}
{{- fail "set either apiKey.existingSecret.name or apiKey.value, not both" }}
{{- end }}
{{- if .Values.apiKey.existingSecret.name }}
{{- .Values.apiKey.existingSecret.name }}
{{- else }}
{{- $_ := required "an admin API key is required: set apiKey.existingSecret.name (a Secret holding it) or apiKey.value" .Values.apiKey.value }}
{{- include "mintlify-exporter.fullname" . }}-key
{{- end }}
{{- end }}

{{- define "mintlify-exporter.keySecretKey" -}}
{{- if .Values.apiKey.existingSecret.name }}{{ .Values.apiKey.existingSecret.key }}{{ else }}api-key{{ end }}
{{- end }}

{{/* The configuration, each key reading the mounted key file unless it says otherwise. */}}
{{- define "mintlify-exporter.config" -}}
{{- $cfg := deepCopy .Values.config }}
{{- $keys := list }}
{{- range $k := ($cfg.keys | default list) }}
{{- if not (or $k.api_key_file $k.api_key_env) }}
{{- $_ := set $k "api_key_file" "/etc/mintlify/secret/api-key" }}
{{- end }}
{{- $keys = append $keys $k }}
{{- end }}
{{- $_ := set $cfg "keys" $keys }}
{{- toYaml $cfg }}
{{- end }}
