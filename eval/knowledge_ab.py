#!/usr/bin/env python3
"""The knowledge channel's A/B: belief channel on vs off, on a set written blind.

Usage: python3 eval/knowledge_ab.py PATINA_BIN PATINA_HOME [QUERIES] [--lexical-only]

PATINA_HOME must hold the evaluation world (eval/world/build.sh) with the project's
beliefs ingested:
    patina mother ingest ../shared/data/patina-beliefs --project patina
(again on a world ingested before ingest-v3, so each belief's `## Applied-In` is read).
QUERIES defaults to eval/knowledge-queries.json (knowledge questions with the beliefs
that answer them, task questions with the code that answers them; written by an author
who read neither the code nor the other query sets).

Prints, channel on vs off: belief recall@5 (all, the fit half kq_001-020 that choices are
made on, and the held out: kq_021-040 and every question of another set, such as
knowledge-queries-2.json, which no choice has seen) and MRR on the knowledge questions; repo MRR,
doc MRR and doc recall@5 on the task questions; tokens (bytes / 4) of the human scry
answer. Python 3 standard library only.
"""

import json
import os
import subprocess
import sys


def scry(binary, home, query, project, extra):
    cmd = [binary, "--home", home, "scry", query, "--project", project, "--limit", "10", "--json", *extra]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed: {out.stderr}")
    human = subprocess.run([c for c in cmd if c != "--json"], capture_output=True, text=True).stdout
    return json.loads(out.stdout) if out.stdout.strip() else {"hits": []}, len(human.encode()) // 4


def doc_matches(path, expected):
    path, expected = path.lstrip("./"), expected.lstrip("./")
    return path == expected or path.startswith(expected.rstrip("/") + "/")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    if len(args) < 2:
        raise SystemExit(__doc__)
    binary, home = args[0], args[1]
    queries = args[2] if len(args) > 2 else os.path.join(os.path.dirname(__file__), "knowledge-queries.json")
    data = json.load(open(queries))
    report = {"queries": os.path.basename(queries), "knowledge": {}, "tasks": {}}

    recalls, mrrs, tokens_on, halves = [], [], [], {"fit": [], "held_out": []}
    for q in data["knowledge"]:
        result, tokens = scry(binary, home, q["query"], q["source_project"], flags)
        tokens_on.append(tokens)
        ids = [h["symbol"] for h in result["hits"] if h.get("kind") in ("belief", "observation")]
        top5 = [h["symbol"] for h in result["hits"][:5] if h.get("kind") in ("belief", "observation")]
        expected = q["expected_beliefs"]
        recalls.append(sum(1 for b in expected if b in top5) / len(expected))
        # Choices are made on kq_001-020 (the fit half of knowledge-queries.json); kq_021-040
        # is held out, and so is every question of another set (knowledge-queries-2.json).
        fit = q["id"].startswith("kq_") and int(q["id"].split("_")[1]) <= 20
        halves["fit" if fit else "held_out"].append(recalls[-1])
        ranks = [i for i, h in enumerate(result["hits"]) if h.get("kind") != "code" and h["symbol"] in expected]
        mrrs.append(1 / (ranks[0] + 1) if ranks else 0.0)
    n = len(recalls)
    report["knowledge"] = {
        "questions": n,
        "belief_recall_at_5": round(sum(recalls) / n, 3),
        "belief_mrr": round(sum(mrrs) / n, 3),
        "with_a_belief_in_top_5": sum(1 for r in recalls if r > 0),
    }
    for half, values in halves.items():
        if values:
            report["knowledge"][f"belief_recall_at_5_{half}"] = round(sum(values) / len(values), 3)

    for label, extra in (("on", flags), ("off", flags + ["--no-beliefs"])):
        repo_mrr, doc_mrr, doc_r5, toks = [], [], [], []
        for q in data["tasks"]:
            result, tokens = scry(binary, home, q["query"], q["source_project"], extra)
            toks.append(tokens)
            hits = result["hits"]
            r = [i for i, h in enumerate(hits) if h.get("kind", "code") == "code" and h["repo"] in q["expected_repos"]]
            repo_mrr.append(1 / (r[0] + 1) if r else 0.0)
            d = [
                i
                for i, h in enumerate(hits)
                if h.get("kind", "code") == "code" and h["repo"] in q["expected_repos"]
                and any(doc_matches(h["path"], e) for e in q["expected_docs"])
            ]
            doc_mrr.append(1 / (d[0] + 1) if d else 0.0)
            top5 = [h for h in hits[:5] if h.get("kind", "code") == "code"]
            found = sum(1 for e in q["expected_docs"] if any(doc_matches(h["path"], e) for h in top5))
            doc_r5.append(found / len(q["expected_docs"]))
        m = len(repo_mrr)
        report["tasks"][label] = {
            "questions": m,
            "repo_mrr": round(sum(repo_mrr) / m, 3),
            "doc_mrr": round(sum(doc_mrr) / m, 3),
            "doc_recall_at_5": round(sum(doc_r5) / m, 3),
            "tokens_per_answer": round(sum(toks) / m),
        }
    report["knowledge"]["tokens_per_answer"] = round(sum(tokens_on) / len(tokens_on))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
