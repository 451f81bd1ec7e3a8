#!/usr/bin/env bash
# Build kube-apiserver and etcd at the versions pinned in go.mod, into
# target/controlplane/kube-<v>-etcd-<v>/, and point target/controlplane/current
# at them. Does nothing when binaries of those versions are already there.
# Prints the directory on stdout; build output goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache="${KAGENT_EVALS_CONTROLPLANE_CACHE:-$root/target/controlplane}"

cd "$here"
kube=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
etcd=$(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
out="$cache/kube-$kube-etcd-$etcd"

if [[ ! -x $out/kube-apiserver || ! -x $out/etcd ]]; then
  echo "building kube-apiserver $kube and etcd $etcd (a cold build takes about 11 minutes on 2 cores)" >&2
  rm -rf "$out.partial"
  mkdir -p "$out.partial"
  # The version the server reports (and derives its compatibility version
  # from) is stamped at link time, as Kubernetes' own build does.
  minor=${kube#v1.}
  minor=${minor%%.*}
  stamp="-X k8s.io/component-base/version.gitVersion=$kube -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
  go build -trimpath -ldflags "$stamp" -o "$out.partial/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
  go build -trimpath -o "$out.partial/etcd" go.etcd.io/etcd/server/v3
  rm -rf "$out"
  mv "$out.partial" "$out"
fi
ln -sfn "$(basename "$out")" "$cache/current"
echo "$out"
