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
  else :tag, the tag defaulting to v and the chart's appVersion (the tag
  the release workflow publishes). */}}
{{- define "mintlify-exporter.image" -}}
{{- $repo := .Values.image.repository }}
{{- with include "mintlify-exporter.registry" (dict "root" . "image" .Values.image) }}{{ $repo = printf "%s/%s" . $repo }}{{ end }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repo .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repo (default (printf "v%s" .Chart.AppVersion) .Values.image.tag) }}
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

{{/* The scheme the exporter serves: https when webConfig has a
  tls_server_config, else http. The probes and the `helm test` pod use it. */}}
{{- define "mintlify-exporter.scheme" -}}
{{- $web := dict }}
{{- with .Values.webConfig }}{{ $web = fromYaml . }}{{ end }}
{{- ternary "https" "http" (not (empty (get $web "tls_server_config"))) }}
{{- end }}

{{/* A probe of values: an httpGet without port or scheme gets the
  container's port (.port, else http) and the scheme the exporter serves. */}}
{{- define "mintlify-exporter.probe" -}}
{{- $p := deepCopy .probe }}
{{- with $p.httpGet }}
{{- if not .port }}{{ $_ := set . "port" ($.port | default "http") }}{{ end }}
{{- if not .scheme }}{{ $_ := set . "scheme" (upper (include "mintlify-exporter.scheme" $.root)) }}{{ end }}
{{- end }}
{{- toYaml $p }}
{{- end }}

{{/* How an error message names a value, as the user sets it: inside an
  umbrella chart (this chart under another's charts/), under the
  dependency's name or alias (.Chart.Name here) and those of the charts
  between. */}}
{{- define "mintlify-exporter.valuePrefix" -}}
{{- $parts := splitList "/charts/" .Template.BasePath }}
{{- if gt (len $parts) 1 }}
{{- range $i, $dir := $parts }}{{ if and (gt $i 0) (lt $i (sub (len $parts) 1)) }}{{ $dir }}.{{ end }}{{ end }}
{{- .Chart.Name }}.
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
{{- $v := include "mintlify-exporter.valuePrefix" . }}
{{- if and .Values.apiKey.value .Values.apiKey.existingSecret.name }}
{{- fail (printf "set either %sapiKey.existingSecret.name or %sapiKey.value, not both" $v $v) }}
{{- end }}
{{- if .Values.apiKey.existingSecret.name }}
{{- .Values.apiKey.existingSecret.name }}
{{- else }}
{{- $_ := required (printf "an admin API key is required: set %sapiKey.existingSecret.name (a Secret holding it) or %sapiKey.value" $v $v) .Values.apiKey.value }}
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
{{- if .Values.receiver.enabled }}
{{- $global := $cfg.global | default dict }}
{{- $_ := set $global "tracked_jobs_file" (include "mintlify-exporter.trackedJobsFile" .) }}
{{- $_ := set $cfg "global" $global }}
{{- end }}
{{- toYaml $cfg }}
{{- end }}

{{/* The tracked-jobs file the receiver appends to and the exporter reads,
  on the state volume both mount: config.global.tracked_jobs_file, else
  tracked-jobs there. */}}
{{- define "mintlify-exporter.trackedJobsFile" -}}
{{- dig "global" "tracked_jobs_file" (printf "%s/tracked-jobs" (.Values.persistence.mountPath | trimSuffix "/")) (.Values.config | default dict) }}
{{- end }}

{{/* Fails, naming every value to fix, when the release could not work:
  no API key (or two), or a project without its real id (the default
  YOUR_PROJECT_ID is a placeholder, refused in any case and with - or _
  as the exporter refuses it). deployment.yaml includes it first. */}}
{{- define "mintlify-exporter.validate" -}}
{{- $v := include "mintlify-exporter.valuePrefix" . }}
{{- $errs := list }}
{{- if and .Values.apiKey.value .Values.apiKey.existingSecret.name }}
{{- $errs = append $errs (printf "set either %sapiKey.existingSecret.name or %sapiKey.value, not both" $v $v) }}
{{- else if not (or .Values.apiKey.value .Values.apiKey.existingSecret.name) }}
{{- $errs = append $errs (printf "an admin API key is required: set %sapiKey.existingSecret.name (a Secret holding it) or %sapiKey.value" $v $v) }}
{{- end }}
{{- if not .Values.existingConfigMap }}
{{- $projects := .Values.config.projects | default list }}
{{- if not (kindIs "slice" $projects) }}
{{- $errs = append $errs (printf "%sconfig.projects must be a list of projects (id and name)" $v) }}
{{- else if not $projects }}
{{- $errs = append $errs (printf "%sconfig.projects is empty: list at least one project (id and name)" $v) }}
{{- end }}
{{- if kindIs "slice" $projects }}
{{- range $i, $p := $projects }}
{{- $id := "" }}
{{- if kindIs "map" $p }}{{ $id = toString ($p.id | default "") }}{{ end }}
{{- if not (kindIs "map" $p) }}
{{- $errs = append $errs (printf "%sconfig.projects[%d] must be a map with id and name" $v $i) }}
{{- else if not $id }}
{{- $errs = append $errs (printf "%sconfig.projects[%d].id is empty: set your Mintlify project id" $v $i) }}
{{- else if eq (upper $id | replace "-" "_") "YOUR_PROJECT_ID" }}
{{- $errs = append $errs (printf "%sconfig.projects[%d].id is the placeholder %q: set your Mintlify project id, in a values file or with --set-json '%sconfig.projects=[{\"id\":\"...\",\"name\":\"docs\"}]' (see the chart's README)" $v $i $id $v) }}
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
{{- $state := .Values.persistence.mountPath | trimSuffix "/" }}
{{- $tracked := include "mintlify-exporter.trackedJobsFile" . }}
{{- if and (not .Values.existingConfigMap) (not (hasPrefix (printf "%s/" $state) (clean $tracked))) }}
{{- $errs = append $errs (printf "%sconfig.global.tracked_jobs_file %q is not on the state volume (%spersistence.mountPath %q), where the receiver appends its jobs: leave it unset or put it under that path" $v $tracked $v $state) }}
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
