{{- define "kagent-evals.name" -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kagent-evals.labels" -}}
app.kubernetes.io/name: kagent-evals
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "kagent-evals.selector" -}}
app.kubernetes.io/name: kagent-evals
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
