#!/usr/bin/env bash
# The main job on the bundled example world, from nothing: build patina, register the
# example registry, link two projects by hand, and show what the event log recorded.
#
#   bash examples/demo.sh            # uses a fresh temporary PATINA_HOME
#   PATINA_HOME=~/.patina-demo bash examples/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --bin patina
patina="$PWD/target/debug/patina"
export PATINA_HOME="${PATINA_HOME:-$(mktemp -d -t patina-demo.XXXXXX)}"

run() {
    printf '\n$ patina'; printf ' %q' "$@"; printf '\n'
    "$patina" "$@"
}

echo "PATINA_HOME=$PATINA_HOME"
run mother sync --registry examples/world/registry.yaml
run mother sync --registry examples/world/registry.yaml     # idempotent: nothing new
run mother link atlas LEARNS_FROM ecsdemo --evidence "studied ecsdemo's archetype storage for atlas's index"
run mother link atlas tests_with quickparse --evidence "quickparse is atlas's parser stress test"
run mother link atlas TESTS_WITH quickparse --evidence "quickparse is atlas's parser stress test"   # no-op
run mother unlink atlas TESTS_WITH quickparse --reason "moved the stress test elsewhere"
run mother log
run mother stats
