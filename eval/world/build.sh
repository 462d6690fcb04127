#!/usr/bin/env bash
# Build the evaluation world: real source trees of the Patina world's reference repos,
# fetched from package registries (eval/world/sources.toml), registered and indexed in a
# fresh PATINA_HOME together with the real session logs.
#
#   eval/world/build.sh [OUT_DIR] [--semantic]
#
# OUT_DIR      default target/eval-world (relative to the repository root)
# --semantic   also embed every chunk (real model; a release binary embeds ~45 chunks/s on
#              2 cores: the whole world's 101k chunks in ~40 min); default is lexical-only
#
# Environment:
#   PATINA_BIN        the patina binary (default: `cargo build` here, then target/debug/patina;
#                     with --semantic `cargo build --release`, then target/release/patina)
#   PATINA_REGISTRY   the world's registry (default ../shared/data/patina-registry.yaml)
#   PATINA_SESSIONS   the session logs     (default ../shared/data/patina-sessions)
#   PATINA_MODELS     the model directory for --semantic (default target/patina-models)
#   EVAL_WORLD_ONLY   comma-separated node ids: fetch and index only these (and patina)
#
# Idempotent and resumable: downloads are cached in OUT_DIR/downloads, unchanged trees
# are kept, and an indexed repo is brought up to date with `patina repo update` (which
# only re-indexes changed files). Afterwards:
#   PATINA_HOME=OUT_DIR/home patina scry "vector similarity search" --all
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT=""
SEMANTIC=0
for a in "$@"; do
  case "$a" in
    --semantic) SEMANTIC=1 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    -*) echo "build.sh: unknown option $a" >&2; exit 2 ;;
    *) [ -z "$OUT" ] || { echo "build.sh: one OUT_DIR only" >&2; exit 2; }; OUT="$a" ;;
  esac
done
OUT="${OUT:-$ROOT/target/eval-world}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

REGISTRY="${PATINA_REGISTRY:-$ROOT/../shared/data/patina-registry.yaml}"
SESSIONS="${PATINA_SESSIONS:-$ROOT/../shared/data/patina-sessions}"
[ -f "$REGISTRY" ] || { echo "build.sh: registry not found: $REGISTRY (set PATINA_REGISTRY)" >&2; exit 2; }
[ -d "$SESSIONS" ] || { echo "build.sh: session logs not found: $SESSIONS (set PATINA_SESSIONS)" >&2; exit 2; }

if [ -z "${PATINA_BIN:-}" ]; then
  if [ "$SEMANTIC" = 1 ]; then
    echo "== building patina (cargo build --release)" >&2
    (cd "$ROOT" && cargo build --release --quiet)
    PATINA_BIN="$ROOT/target/release/patina"
  else
    echo "== building patina (cargo build)" >&2
    (cd "$ROOT" && cargo build --quiet)
    PATINA_BIN="$ROOT/target/debug/patina"
  fi
fi
[ -x "$PATINA_BIN" ] || { echo "build.sh: not executable: $PATINA_BIN" >&2; exit 2; }

T0=$(date +%s)
export PATINA_HOME="$OUT/home"
mkdir -p "$PATINA_HOME"

echo "== fetching sources into $OUT/repos" >&2
python3 "$ROOT/eval/world/world.py" fetch "$OUT"

# patina itself is "the local project": a copy of this repository's own sources.
echo "== patina: copying this repository's sources" >&2
rm -rf "$OUT/repos/patina.staging"
mkdir -p "$OUT/repos/patina.staging"
# Not eval/: it holds the querysets and labels, which must not be searchable answers.
for p in src rules benches README.md ARCHITECTURE.md Cargo.toml; do
  [ -e "$ROOT/$p" ] && cp -a "$ROOT/$p" "$OUT/repos/patina.staging/"
done
rm -rf "$OUT/repos/patina"
mv "$OUT/repos/patina.staging" "$OUT/repos/patina"

python3 "$ROOT/eval/world/world.py" registry "$OUT" "$REGISTRY"

echo "== patina mother sync + ingest (PATINA_HOME=$PATINA_HOME)" >&2
"$PATINA_BIN" mother sync --registry "$OUT/registry.yaml" >&2
"$PATINA_BIN" mother ingest "$SESSIONS" --project patina >"$OUT/ingest.txt"
tail -n 3 "$OUT/ingest.txt" >&2 || true

LEX=(--lexical-only)
if [ "$SEMANTIC" = 1 ]; then
  LEX=(--wait)   # embed before returning: the benchmark needs every vector
  export PATINA_MODELS="${PATINA_MODELS:-$ROOT/target/patina-models}"
  if ! "$PATINA_BIN" models status >/dev/null 2>&1; then
    echo "== fetching the embedding model into $PATINA_MODELS" >&2
    "$PATINA_BIN" models fetch >&2
  fi
fi

# Index: patina first, then every fetched tree (sorted), add or update.
"$PATINA_BIN" repo list --json >"$OUT/repo-list.json"
ids=(patina)
for d in "$OUT"/repos/*/; do
  id="$(basename "$d")"
  [ "$id" = patina ] && continue
  case "$id" in *.staging) continue ;; esac
  if [ -n "${EVAL_WORLD_ONLY:-}" ] && [[ ",$EVAL_WORLD_ONLY," != *",$id,"* ]]; then continue; fi
  ids+=("$id")
done
: >"$OUT/index-times.tsv"
for id in "${ids[@]}"; do
  if python3 - "$OUT/repo-list.json" "$id" <<'EOF'
import json, sys
data = json.load(open(sys.argv[1]))
repos = data if isinstance(data, list) else data.get("repos", [])
sys.exit(0 if any(r.get("id") == sys.argv[2] and (r.get("index") or r.get("chunks")) for r in repos) else 1)
EOF
  then verb=(repo update "$id"); else verb=(repo add "$id"); fi
  echo "== $id: patina ${verb[*]} ${LEX[*]:-}" >&2
  s=$(date +%s.%N)
  if "$PATINA_BIN" "${verb[@]}" "${LEX[@]}" >"$OUT/index-$id.txt" 2>&1; then st=ok; else st=FAILED; fi
  e=$(date +%s.%N)
  printf '%s\t%s\t%s\n' "$id" "$st" "$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.1f", b-a}')" >>"$OUT/index-times.tsv"
  [ "$st" = ok ] || { echo "   failed, see $OUT/index-$id.txt" >&2; tail -n 3 "$OUT/index-$id.txt" >&2; }
done

"$PATINA_BIN" repo list --json >"$OUT/repo-list.json"
echo
python3 "$ROOT/eval/world/world.py" table "$OUT"
echo
echo "total $(( $(date +%s) - T0 )) s; disk: $(du -sh "$OUT/repos" | cut -f1) trees, $(du -sh "$PATINA_HOME" | cut -f1) PATINA_HOME, $(du -sh "$OUT/downloads" | cut -f1) downloads"
echo "use it: PATINA_HOME=$PATINA_HOME $PATINA_BIN scry \"QUERY\" --all"
