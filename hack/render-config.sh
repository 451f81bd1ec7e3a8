#!/usr/bin/env bash
# Render the kustomize base in config/ from the Helm chart, and copy the
# chart's Grafana dashboard beside it, so the two installs cannot drift
# apart. The integration tests render it again and compare.
#
#   hack/render-config.sh [OUT_DIR]      # default: config/
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/config}
helm=${HELM:-$root/target/tools/current/helm}
mkdir -p "$out/base" "$out/crd" "$out/grafana"
{
  echo "# Rendered from charts/kagent-evals by hack/render-config.sh; do not edit."
  "$helm" template kagent-evals "$root/charts/kagent-evals" \
    --namespace kagent-evals --kube-version 1.37.2 \
    --values "$root/config/chart-values.yaml" \
    | grep -v -e '^ *helm.sh/chart:' -e '^ *app.kubernetes.io/managed-by:' -e '^# Source:'
} > "$out/base/kagent-evals.yaml"
cp "$root"/crds/*.yaml "$out/crd/"
cp "$root/charts/kagent-evals/dashboards/kagent-evals.json" "$out/grafana/kagent-evals-dashboard.json"
