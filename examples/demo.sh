#!/usr/bin/env bash
# The main job on the bundled example world, from nothing: build patina, register the
# example registry, ingest the example session logs and bench log, derive the graph,
# explain an edge, link and unlink by hand, and show what the event log recorded.
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
run mother ingest examples/world/sessions examples/world/bench-runs.jsonl --project atlas
run mother ingest examples/world/sessions examples/world/bench-runs.jsonl --project atlas   # idempotent
run mother graph
run mother explain atlas TESTS_WITH quickparse
run mother explain atlas USES ecsdemo || true     # no such edge: exit 1, says what is missing
run mother link atlas USES ecsdemo --evidence "atlas vendors ecsdemo's column store"
run mother unlink atlas LEARNS_FROM vectorlite --reason "we only use it, we did not learn from it"
run mother neighbors atlas --direction out
run mother path atlas quickparse
run mother rules
run mother log --limit 5
run mother stats
