#!/usr/bin/env bash
# Builds every shipped artifact twice from a clean tree, in two copies of this commit, and
# compares them byte for byte: the jars (the relay service's outbox-relay.jar too), the sources
# jars and the CycloneDX SBOMs. Exits 1 naming each file that differs.
#
#   docs/reproducible-check.sh [work directory, default /tmp/outbox-repro]
#
# Each copy builds in a different directory, a minute apart, so neither path nor build time may
# leak into an artifact. Maven reads ~/.m2 but installs nothing (`package`, not `install`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-/tmp/outbox-repro}"
# the modules whose artifacts are published (every module that does not skip deploy)
shipped=$(cd "$root" && for p in */pom.xml; do grep -q '<maven.deploy.skip>true' "$p" || dirname "$p"; done | paste -sd, -)

rm -rf "$work" && mkdir -p "$work"
for run in a b; do
  git -C "$root" worktree add -q --detach "$work/$run" HEAD
  (cd "$work/$run" && ./mvnw -B -q package -DskipTests -pl "$shipped")
  (cd "$work/$run" && find . -path '*/target/*' \( -name '*.jar' -o -name 'bom.json' -o -name 'bom.xml' \) \
     -not -path '*/test-classes/*' | sort | xargs sha256sum) > "$work/$run.sha256"
  [ "$run" = a ] && sleep 61
done
git -C "$root" worktree remove --force "$work/a"
git -C "$root" worktree remove --force "$work/b"

echo "$(wc -l < "$work/a.sha256") artifacts per build, modules: $shipped"
if diff "$work/a.sha256" "$work/b.sha256"; then
  echo "reproducible: both builds gave byte-identical artifacts"
else
  echo "NOT reproducible: the files above differ between the two builds" >&2
  exit 1
fi
