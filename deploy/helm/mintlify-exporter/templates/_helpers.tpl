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

{{/* The namespace of the objects. */}}
{{- define "mintlify-exporter.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The registry of an image: global.imageRegistry (an umbrella chart's)
  before the image's own. */}}
{{- define "mintlify-exporter.registry" -}}
{{- $global := .root.Values.global | default dict }}
{{- default .image.registry $global.imageRegistry }}
{{- end }}

{{/* The image reference: [registry/]repository, then @digest when set,
  else :tag, the tag defaulting to the chart's appVersion. */}}
{{- define "mintlify-exporter.image" -}}
{{- $repo := .Values.image.repository }}
{{- with include "mintlify-exporter.registry" (dict "root" . "image" .Values.image) }}{{ $repo = printf "%s/%s" . $repo }}{{ end }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repo .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repo (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The image of the `helm test` pod. */}}
{{- define "mintlify-exporter.testImage" -}}
{{- $img := .Values.helmTest.image }}
{{- $repo := $img.repository }}
{{- with include "mintlify-exporter.registry" (dict "root" . "image" $img) }}{{ $repo = printf "%s/%s" . $repo }}{{ end }}
{{- printf "%s:%s" $repo $img.tag }}
{{- end }}

{{/* The pull secrets: global.imagePullSecrets, then imagePullSecrets;
  each a name or a {name: ...} reference. */}}
{{- define "mintlify-exporter.imagePullSecrets" -}}
{{- $global := .Values.global | default dict }}
{{- $seen := dict }}
{{- range concat ($global.imagePullSecrets | default list) (.Values.imagePullSecrets | default list) }}
{{- $name := . }}
{{- if kindIs "map" . }}{{ $name = .name }}{{ end }}
{{- if and $name (not (hasKey $seen $name)) }}
{{- $_ := set $seen $name true }}
- name: {{ $name }}
{{- end }}
{{- end }}
{{- end }}

{{/* A probe of values: an httpGet without port or scheme gets the
  container's port and the scheme webConfig implies. */}}
{{- define "mintlify-exporter.probe" -}}
{{- $p := deepCopy .probe }}
{{- with $p.httpGet }}
{{- if not .port }}{{ $_ := set . "port" "http" }}{{ end }}
{{- if not .scheme }}{{ $_ := set . "scheme" (ternary (upper $.root.Values.serviceMonitor.scheme) "HTTP" (not (empty $.root.Values.webConfig))) }}{{ end }}
{{- end }}
{{- toYaml $p }}
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

{{/* Fails, naming every value to fix, when the release could not work:
  no API key (or two), or a project without its real id (the default
  your-project-id is a placeholder). deployment.yaml includes it first. */}}
{{- define "mintlify-exporter.validate" -}}
{{- $errs := list }}
{{- if and .Values.apiKey.value .Values.apiKey.existingSecret.name }}
{{- $errs = append $errs "set either apiKey.existingSecret.name or apiKey.value, not both" }}
{{- else if not (or .Values.apiKey.value .Values.apiKey.existingSecret.name) }}
{{- $errs = append $errs "an admin API key is required: set apiKey.existingSecret.name (a Secret holding it) or apiKey.value" }}
{{- end }}
{{- if not .Values.existingConfigMap }}
{{- $projects := .Values.config.projects | default list }}
{{- if not (kindIs "slice" $projects) }}
{{- $errs = append $errs "config.projects must be a list of projects (id and name)" }}
{{- else if not $projects }}
{{- $errs = append $errs "config.projects is empty: list at least one project (id and name)" }}
{{- end }}
{{- if kindIs "slice" $projects }}
{{- range $i, $p := $projects }}
{{- $id := "" }}
{{- if kindIs "map" $p }}{{ $id = toString ($p.id | default "") }}{{ end }}
{{- if not (kindIs "map" $p) }}
{{- $errs = append $errs (printf "config.projects[%d] must be a map with id and name" $i) }}
{{- else if not $id }}
{{- $errs = append $errs (printf "config.projects[%d].id is empty: set your Mintlify project id" $i) }}
{{- else if eq (lower $id | replace "_" "-") "your-project-id" }}
{{- $errs = append $errs (printf "config.projects[%d].id is the placeholder %q: set your Mintlify project id, in a values file or with --set-json 'config.projects=[{\"id\":\"...\",\"name\":\"docs\"}]' (see the chart's README)" $i $id) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if .Values.receiver.enabled }}
{{- if not .Values.receiver.routes }}
{{- $errs = append $errs "receiver.enabled needs receiver.routes: the routes file (docs/loop.md)" }}
{{- end }}
{{- if not .Values.receiver.bearerToken.existingSecret.name }}
{{- $errs = append $errs "receiver.enabled needs receiver.bearerToken.existingSecret.name: a Secret holding the token Alertmanager sends" }}
{{- end }}
{{- if and .Values.receiver.act (not .Values.persistence.enabled) }}
{{- $errs = append $errs "receiver.act needs persistence.enabled: on an emptyDir the receiver's state (what it did, its cooldowns and daily counts) would be lost with the pod, and it could act twice" }}
{{- end }}
{{- if and .Values.receiver.act (not .Values.receiver.apiKey.existingSecret.name) }}
{{- $errs = append $errs "receiver.act needs receiver.apiKey.existingSecret.name: a Secret holding the receiver's own write-scoped key" }}
{{- end }}
{{- end }}
{{- with $errs }}
{{- fail (join "; " .) }}
{{- end }}
{{- end }}
