{{- define "agent-eval.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "agent-eval.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one role: (dict "root" $ "role" "api") */}}
{{- define "agent-eval.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{- define "agent-eval.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "agent-eval.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "agent-eval.fullname" .)) -}}
{{- end -}}

{{/* The environment every role shares: the ConfigMap, then the Secret. */}}
{{- define "agent-eval.envFrom" -}}
- configMapRef:
    name: {{ include "agent-eval.fullname" . }}-config
- secretRef:
    name: {{ include "agent-eval.secretName" . }}
{{- end -}}

{{/* Checksums that roll the pods when the configuration changes. */}}
{{- define "agent-eval.configChecksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end -}}
