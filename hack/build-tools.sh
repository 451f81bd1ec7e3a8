#!/usr/bin/env bash
# Build the Go tools the tests run, from the pinned modules in hack/, into
# target/<set>/<versions>/, and point target/<set>/current at them. A set
# whose binaries of those versions are already there is not rebuilt.
#
#   hack/build-tools.sh                 # both sets
#   hack/build-tools.sh controlplane    # kube-apiserver, etcd, kubectl (hack/controlplane)
#   hack/build-tools.sh tools           # helm and kustomize (hack/tools)
#
# Prints each set's directory on stdout; build output goes to stderr. A cold
# build of the control plane takes about 11 minutes on 2 cores.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

version() { (cd "$1" && go list -m -f '{{.Version}}' "$2"); }

# build SET MODULE_DIR LABEL NAME=PACKAGE[=LDFLAGS]...
build() {
  local set=$1 module=$2 label=$3
  shift 3
  local out="$root/target/$set/$label"
  local missing=0 spec
  for spec in "$@"; do
    [[ -x $out/${spec%%=*} ]] || missing=1
  done
  if [[ $missing == 1 ]]; then
    echo "building $set: $label" >&2
    rm -rf "$out.partial"
    mkdir -p "$out.partial"
    for spec in "$@"; do
      local name=${spec%%=*} rest=${spec#*=}
      local package=${rest%%=*} ldflags=""
      [[ $rest == *=* ]] && ldflags=${rest#*=}
      (cd "$module" && go build -trimpath -ldflags "$ldflags" -o "$out.partial/$name" "$package")
    done
    rm -rf "$out"
    mv "$out.partial" "$out"
  fi
  ln -sfn "$label" "$root/target/$set/current"
  echo "$out"
}

controlplane() {
  local dir="$root/hack/controlplane"
  local kube etcd minor
  kube=$(version "$dir" k8s.io/kubernetes)
  etcd=$(version "$dir" go.etcd.io/etcd/server/v3)
  minor=${kube#v1.}
  minor=${minor%%.*}
  # The version kube-apiserver reports, and derives its compatibility
  # version from, is stamped at link time as Kubernetes' own build does;
  # kubectl reports (and checks its skew against) the same one.
  local stamp="-X k8s.io/component-base/version.gitVersion=$kube -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
  build controlplane "$dir" "kube-$kube-etcd-$etcd" \
    "kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver=$stamp" \
    "etcd=go.etcd.io/etcd/server/v3" \
    "kubectl=k8s.io/kubernetes/cmd/kubectl=$stamp"
}

tools() {
  local dir="$root/hack/tools"
  local helm kustomize
  helm=$(version "$dir" helm.sh/helm/v3)
  kustomize=$(version "$dir" sigs.k8s.io/kustomize/kustomize/v5)
  build tools "$dir" "helm-$helm-kustomize-$kustomize" \
    "helm=helm.sh/helm/v3/cmd/helm=-X helm.sh/helm/v3/internal/version.version=$helm" \
    "kustomize=sigs.k8s.io/kustomize/kustomize/v5"
}

sets=("$@")
[[ ${#sets[@]} == 0 ]] && sets=(controlplane tools)
for set in "${sets[@]}"; do
  case $set in
    controlplane) controlplane ;;
    tools) tools ;;
    *) echo "unknown set $set (controlplane or tools)" >&2; exit 2 ;;
  esac
done
