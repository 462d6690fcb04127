#!/usr/bin/env python3
"""Helper of eval/world/build.sh: fetch the packages of sources.toml and lay them out as
source trees, write the world's registry, and print the size table.

    world.py fetch    OUT_DIR            fetch + lay out every node of sources.toml
    world.py registry OUT_DIR REGISTRY   write OUT_DIR/registry.yaml from REGISTRY
    world.py table    OUT_DIR            print the per-node table (needs repo-list.json)

Idempotent: downloads are kept in OUT_DIR/downloads/, and a node's tree is rebuilt only
when its [[source]] entries changed (OUT_DIR/state/<node>.json). A failed fetch is
reported and that node is skipped; the others go on. Standard library only (Python 3.11+).
"""

import fnmatch
import glob
import hashlib
import io
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "sources.toml")
LAYOUT_VERSION = 3  # bump when the layout code changes, so every tree is rebuilt


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-400:]}")
    return r.stdout


# ------------------------------------------------------------------------------ fetching

def cargo_home():
    return os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo")


def fetch_crate(name, version, dl):
    dest = os.path.join(dl, f"{name}-{version}.crate")
    if os.path.exists(dest):
        return dest

    def cached():
        hits = glob.glob(os.path.join(cargo_home(), "registry", "cache", "*", f"{name}-{version}.crate"))
        return hits[0] if hits else None

    src = cached()
    if not src:
        # `cargo info NAME@VERSION` downloads exactly that .crate into cargo's cache.
        try:
            run(["cargo", "info", f"{name}@{version}"], cwd=dl)
        except RuntimeError as e:
            log(f"  cargo info failed ({e}); trying a throwaway project")
        src = cached()
    if not src:
        # Fallback: a throwaway project depending on the pinned crate, then cargo fetch.
        proj = os.path.join(dl, f"fetch-{name}-{version}")
        os.makedirs(os.path.join(proj, "src"), exist_ok=True)
        with open(os.path.join(proj, "Cargo.toml"), "w") as f:
            f.write(f'[package]\nname = "eval-world-fetch"\nversion = "0.0.0"\nedition = "2021"\n\n'
                    f'[dependencies]\n"{name}" = "={version}"\n\n[workspace]\n')
        open(os.path.join(proj, "src", "lib.rs"), "w").close()
        run(["cargo", "fetch"], cwd=proj)
        src = cached()
    if not src:
        raise RuntimeError(f"crate {name} {version} not found in cargo's cache after fetching")
    shutil.copyfile(src, dest + ".part")
    os.replace(dest + ".part", dest)
    return dest


def fetch_npm(name, version, dl):
    stem = name.lstrip("@").replace("/", "-")
    dest = os.path.join(dl, f"{stem}-{version}.tgz")
    if os.path.exists(dest):
        return dest
    tmp = os.path.join(dl, f".npm-{stem}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    run(["npm", "pack", f"{name}@{version}", "--pack-destination", tmp, "--loglevel", "error"], cwd=tmp)
    got = [f for f in os.listdir(tmp) if f.endswith(".tgz")]
    if len(got) != 1:
        raise RuntimeError(f"npm pack {name}@{version} produced {got}")
    os.replace(os.path.join(tmp, got[0]), dest)
    shutil.rmtree(tmp, ignore_errors=True)
    return dest


def fetch_pypi(name, version, dl):
    norm = re.sub(r"[-_.]+", "_", name).lower()
    for f in os.listdir(dl):
        m = re.match(r"^(.*)-([^-]+)\.(tar\.gz|zip)$", f)
        if m and re.sub(r"[-_.]+", "_", m.group(1)).lower() == norm and m.group(2) == version:
            return os.path.join(dl, f)
    tmp = os.path.join(dl, f".pip-{norm}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    # --no-binary NAME (not :all:): the sdist of this package, while its build backend may
    # come as a wheel; with :all: pip builds every build dependency from source (minutes).
    py = os.environ.get("PATINA_PYTHON", sys.executable)
    run([py, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", name, "-d", tmp, f"{name}=={version}"])
    got = [f for f in os.listdir(tmp) if f.endswith((".tar.gz", ".zip"))]
    if len(got) != 1:
        raise RuntimeError(f"pip download {name}=={version} gave {os.listdir(tmp)} (no sdist?)")
    dest = os.path.join(dl, got[0])
    os.replace(os.path.join(tmp, got[0]), dest)
    shutil.rmtree(tmp, ignore_errors=True)
    return dest


def fetch_debian(name, version, dl):
    for f in os.listdir(dl):
        if f.startswith(f"{name}_") and f.endswith(".deb"):
            return os.path.join(dl, f)
    run(["apt-get", "download", f"{name}={version}"], cwd=dl)
    for f in os.listdir(dl):
        if f.startswith(f"{name}_") and f.endswith(".deb"):
            return os.path.join(dl, f)
    raise RuntimeError(f"apt-get download {name}={version} left no .deb")


FETCH = {"crates": fetch_crate, "npm": fetch_npm, "pypi": fetch_pypi, "debian": fetch_debian}


# ------------------------------------------------------------------------- reading files

def read_members(archive):
    """Yield (path, bytes) of the regular files of a package archive."""
    if archive.endswith(".deb"):
        tmp = archive + ".x"
        if not os.path.isdir(tmp):
            run(["dpkg-deb", "-x", archive, tmp + ".part"])
            os.replace(tmp + ".part", tmp)
        for root, _, files in os.walk(tmp):
            for f in files:
                p = os.path.join(root, f)
                if os.path.isfile(p) and not os.path.islink(p):
                    with open(p, "rb") as fh:
                        yield os.path.relpath(p, tmp).replace(os.sep, "/"), fh.read()
        return
    yield from tar_members(tarfile.open(archive, "r:*"))


def tar_members(tf):
    with tf:
        for m in tf:
            if m.isfile():
                name = m.name[2:] if m.name.startswith("./") else m.name
                yield name.lstrip("/"), tf.extractfile(m).read()


def strip_top(files):
    """Drop the single top-level directory every path shares (package/, NAME-VERSION/)."""
    tops = {p.split("/", 1)[0] for p in files if "/" in p}
    if len(tops) == 1 and all("/" in p for p in files):
        top = tops.pop() + "/"
        return {p[len(top):]: d for p, d in files.items()}
    return files


def strip_prefix(path, prefix):
    """`path` without `prefix` (directory segments, each may be a `*` glob), or None."""
    segs = prefix.strip("/").split("/")
    parts = path.split("/")
    if len(parts) <= len(segs) or not all(fnmatch.fnmatchcase(a, b) for a, b in zip(parts, segs)):
        return None
    return "/".join(parts[len(segs):])


def matches(path, pats):
    for pat in pats:
        if "*" in pat:
            if fnmatch.fnmatch(path, pat) or fnmatch.fnmatch(posixpath.basename(path), pat):
                return True
        elif path == pat or path.startswith(pat if pat.endswith("/") else pat + "/") or path == pat.rstrip("/"):
            return True
    return False


def sourcemap_files(files):
    """Original sources embedded in the *.map files (sourcesContent), package-relative."""
    out = {}
    for p, data in files.items():
        if not p.endswith(".map"):
            continue
        try:
            m = json.loads(data)
        except Exception:
            continue
        root = m.get("sourceRoot") or ""
        for src, content in zip(m.get("sources") or [], m.get("sourcesContent") or []):
            if not content or "node_modules" in src or src.startswith(("webpack:", "http")):
                continue
            rel = posixpath.normpath(posixpath.join(posixpath.dirname(p), root, src))
            if rel.startswith("..") or rel.startswith("/"):
                continue
            out.setdefault(rel, content.encode("utf-8"))
    return out


def layout(src, archive_path):
    files = dict(read_members(archive_path))
    if not archive_path.endswith(".deb"):
        files = strip_top(files)
    if src.get("archive"):
        inner = files[src["archive"]]
        files = strip_top(dict(tar_members(tarfile.open(fileobj=io.BytesIO(inner), mode="r:*"))))
    embedded = sourcemap_files(files) if src.get("sourcemaps") else {}
    strip = src.get("strip", "")
    if strip:
        files = {rest: d for p, d in files.items() if (rest := strip_prefix(p, strip)) is not None}
    inc, exc = src.get("include"), src.get("exclude", [])
    kept = {p: d for p, d in files.items() if (inc is None or matches(p, inc)) and not matches(p, exc)}
    kept.update({p: d for p, d in embedded.items() if p not in kept})
    out = {}
    for p, d in kept.items():
        for old, new in (src.get("map") or {}).items():
            if p.startswith(old):
                p = new + p[len(old):]
                break
        out[src.get("dest", "") + p] = d
    return out


# ----------------------------------------------------------------------------- commands

def load_sources():
    with open(SOURCES, "rb") as f:
        cfg = tomllib.load(f)
    nodes = {}
    for s in cfg.get("source", []):
        nodes.setdefault(s["node"], []).append(s)
    return nodes, cfg.get("unavailable", {})


def cmd_fetch(out):
    nodes, _ = load_sources()
    only = set(filter(None, os.environ.get("EVAL_WORLD_ONLY", "").split(",")))
    dl = os.path.join(out, "downloads")
    state = os.path.join(out, "state")
    repos = os.path.join(out, "repos")
    for d in (dl, state, repos):
        os.makedirs(d, exist_ok=True)
    summary = {}
    for node, srcs in nodes.items():
        if only and node not in only:
            continue
        key = hashlib.sha256(json.dumps([LAYOUT_VERSION, srcs], sort_keys=True).encode()).hexdigest()
        stamp = os.path.join(state, f"{node}.json")
        tree = os.path.join(repos, node)
        if os.path.isdir(tree) and os.path.exists(stamp):
            with open(stamp) as f:
                st = json.load(f)
            if st.get("key") == key:
                summary[node] = st
                log(f"  {node}: up to date ({st['files']} files)")
                continue
        log(f"  {node}: fetching {', '.join(s['package'] + '@' + s['version'] for s in srcs)}")
        try:
            files = {}
            for s in srcs:
                sub = os.path.join(dl, s["registry"])
                os.makedirs(sub, exist_ok=True)
                path = FETCH[s["registry"]](s["package"], s["version"], sub)
                got = layout(s, path)
                if not got:
                    raise RuntimeError(f"{s['package']}@{s['version']}: no file kept (check include/strip)")
                files.update(got)
        except Exception as e:  # one node failing does not stop the world
            log(f"  {node}: SKIPPED: {e}")
            summary[node] = {"error": str(e)}
            continue
        staging = tree + ".staging"
        shutil.rmtree(staging, ignore_errors=True)
        total = 0
        for p, d in files.items():
            fp = os.path.join(staging, p)
            os.makedirs(os.path.dirname(fp), exist_ok=True)
            with open(fp, "wb") as f:
                f.write(d)
            total += len(d)
        shutil.rmtree(tree, ignore_errors=True)
        os.replace(staging, tree)
        st = {"key": key, "files": len(files), "bytes": total,
              "packages": [f"{s['registry']}:{s['package']}@{s['version']}" for s in srcs]}
        with open(stamp, "w") as f:
            json.dump(st, f)
        summary[node] = st
        log(f"  {node}: {len(files)} files, {total / 1e6:.1f} MB")
    with open(os.path.join(out, "fetched.json"), "w") as f:
        json.dump(summary, f, indent=1)
    return 0


def cmd_registry(out, registry):
    """Copy REGISTRY with `path:` set for every node that has a tree in OUT_DIR/repos/,
    and removed for the others (their paths on the original machine do not exist here)."""
    repos = os.path.join(os.path.abspath(out), "repos")
    have = {d for d in os.listdir(repos) if os.path.isdir(os.path.join(repos, d)) and not d.endswith(".staging")}
    lines = open(registry).read().splitlines()
    res, node, indent = [], None, ""
    for line in lines:
        m = re.match(r"^(\s*)-\s+id:\s*(\S+)\s*$", line)
        if m:
            node, indent = m.group(2).strip("\"'"), m.group(1) + "  "
            res.append(line)
            continue
        if node and re.match(r"^\s+path:", line):
            continue
        res.append(line)
        if node and re.match(r"^\s+kind:", line) and node in have:
            res.append(f"{indent}path: {os.path.join(repos, node)}")
    header = ["# Generated by eval/world/build.sh from " + os.path.basename(registry) +
              ": the same nodes, with path: set to the trees under repos/."]
    with open(os.path.join(out, "registry.yaml"), "w") as f:
        f.write("\n".join(header + res) + "\n")
    missing = [n for n in have if f"id: {n}" not in "\n".join(lines)]
    if missing:
        log(f"  warning: trees with no registry node: {missing}")
    return 0


def human(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def cmd_table(out):
    fetched = json.load(open(os.path.join(out, "fetched.json")))
    listing = json.load(open(os.path.join(out, "repo-list.json")))
    times = {}
    tp = os.path.join(out, "index-times.tsv")
    if os.path.exists(tp):
        for line in open(tp):
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                times[parts[0]] = (parts[1], float(parts[2]))
    repos = listing if isinstance(listing, list) else listing.get("repos", listing.get("nodes", []))
    by_id = {r.get("id"): r for r in repos}
    rows = [("node", "packages", "tree files", "tree size", "indexed files", "chunks", "index size", "index s")]
    tot = [0, 0, 0, 0, 0, 0.0]
    shown = set(fetched) | {i for i, r in by_id.items() if r.get("chunks") is not None or r.get("path")}
    for node in sorted(shown, key=str.lower):
        f, r = fetched.get(node, {}), by_id.get(node, {})
        tree = os.path.join(out, "repos", node)
        if not f and os.path.isdir(tree):  # patina's own copy: count it here
            paths = [os.path.join(d, x) for d, _, xs in os.walk(tree) for x in xs]
            f = {"files": len(paths), "bytes": sum(os.path.getsize(p) for p in paths)}
        pk = ", ".join(p.split(":", 1)[1] for p in f.get("packages", [])) or ("(local copy)" if node == "patina" else f.get("error", "-")[:40])
        idx = r.get("index") or r
        files, chunks, size = idx.get("files"), idx.get("chunks"), idx.get("index_bytes")
        secs = times.get(node, ("", 0.0))[1]
        rows.append((node, pk, str(f.get("files", "")), human(f["bytes"]) if "bytes" in f else "",
                     str(files if files is not None else ""), str(chunks if chunks is not None else ""),
                     human(size) if isinstance(size, (int, float)) else str(size or ""), f"{secs:.1f}" if secs else ""))
        tot[0] += f.get("files", 0); tot[1] += f.get("bytes", 0)
        tot[2] += files or 0; tot[3] += chunks or 0
        tot[4] += size if isinstance(size, (int, float)) else 0; tot[5] += secs
    rows.append(("TOTAL", "", str(tot[0]), human(tot[1]), str(tot[2]), str(tot[3]), human(tot[4]), f"{tot[5]:.1f}"))
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for i, r in enumerate(rows):
        print("| " + " | ".join(c.ljust(w[j]) for j, c in enumerate(r)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (x + 2) for x in w) + "|")
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "fetch":
        return cmd_fetch(argv[1])
    if len(argv) >= 3 and argv[0] == "registry":
        return cmd_registry(argv[1], argv[2])
    if len(argv) >= 2 and argv[0] == "table":
        return cmd_table(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
