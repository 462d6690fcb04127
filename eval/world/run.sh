#!/usr/bin/env bash
# Build the evaluation world (eval/world/build.sh) and run the routing benchmark on it:
# the shared queryset, eval/world/queries.json, eval/world/fit2-queries.json,
# eval/world/fit3-queries.json and the held-out eval/world/heldout-queries.json, each under graph, all and oracle
# routing, printed as markdown tables (per-query rows in OUT_DIR/bench-*.json).
#
#   eval/world/run.sh [OUT_DIR] [--semantic]
#
# OUT_DIR      default target/eval-world
# --semantic   embed the world and benchmark both channels (hours for the whole world;
#              narrow it with EVAL_WORLD_ONLY, see build.sh); default: lexical only
#
# Environment: as build.sh (PATINA_BIN, PATINA_REGISTRY, PATINA_SESSIONS, PATINA_MODELS,
# EVAL_WORLD_ONLY), plus PATINA_QUERYSET (default ../shared/data/cross-project-queryset.json).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT=""
SEMANTIC=0
for a in "$@"; do
  case "$a" in
    --semantic) SEMANTIC=1 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $a" >&2; exit 2 ;;
    *) [ -z "$OUT" ] || { echo "run.sh: one OUT_DIR only" >&2; exit 2; }; OUT="$a" ;;
  esac
done
OUT="${OUT:-$ROOT/target/eval-world}"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
if [ -z "${PATINA_BIN:-}" ]; then
  # Embedding the world wants the release build (as build.sh --semantic builds it).
  if [ "$SEMANTIC" = 1 ]; then
    echo "== building patina (cargo build --release)" >&2
    (cd "$ROOT" && cargo build --release --quiet)
    export PATINA_BIN="$ROOT/target/release/patina"
  else
    echo "== building patina (cargo build)" >&2
    (cd "$ROOT" && cargo build --quiet)
    export PATINA_BIN="$ROOT/target/debug/patina"
  fi
fi

build_args=("$OUT")
bench_args=(--lexical-only)
if [ "$SEMANTIC" = 1 ]; then
  build_args+=(--semantic)
  bench_args=()
  export PATINA_MODELS="${PATINA_MODELS:-$ROOT/target/patina-models}"
fi
"$ROOT/eval/world/build.sh" "${build_args[@]}" >&2

export PATINA_HOME="$OUT/home"
for set in "${PATINA_QUERYSET:-$ROOT/../shared/data/cross-project-queryset.json}" \
  "$ROOT/eval/world/queries.json" "$ROOT/eval/world/fit2-queries.json" "$ROOT/eval/world/fit3-queries.json" \
  "$ROOT/eval/world/heldout-queries.json"; do
  name="$(basename "$set" .json)"
  echo
  echo "## $name"
  echo
  "$PATINA_BIN" bench retrieval -q "$set" "${bench_args[@]}"
  "$PATINA_BIN" bench retrieval -q "$set" "${bench_args[@]}" --json >"$OUT/bench-$name.json"
done
