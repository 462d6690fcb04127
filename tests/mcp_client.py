"""A real MCP client (the official Python SDK, `pip install mcp`) against `patina mcp`.

Usage: python3 tests/mcp_client.py PATINA_BINARY PATINA_HOME
Prints one JSON report on stdout; exits non-zero on the first failed check.
Started by tests/mcp.rs on the bundled example world.
"""

import asyncio
import json
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
try:  # mcp 2.x
    from mcp.shared.exceptions import MCPError
except ImportError:  # mcp 1.x
    from mcp.shared.exceptions import McpError as MCPError


def field(obj, snake, camel):
    """mcp 2.x names fields in snake_case, 1.x in camelCase."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def is_error(result):
    return bool(field(result, "is_error", "isError"))


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main(patina, home):
    report = {}
    params = StdioServerParameters(command=patina, args=["--home", home, "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert field(init, "server_info", "serverInfo").name == "patina", init
            assert "scry" in (init.instructions or "") and "explain_edge" in init.instructions
            info = field(init, "server_info", "serverInfo")
            report["server"] = {"name": info.name, "version": info.version}

            tools = (await session.list_tools()).tools
            names = sorted(t.name for t in tools)
            report["tools"] = names
            for t in tools:
                assert t.description and len(t.description) > 40, t.name
                assert field(t, "input_schema", "inputSchema").get("type") == "object", t.name

            ctx = await session.call_tool("context", {"project": "atlas", "topic": "vector search"})
            body = text_of(ctx)
            assert not is_error(ctx), body
            assert "TESTS_WITH quickparse" in body and "vectorlite" in body and "## Recall" in body, body

            nb = await session.call_tool("graph_neighbors", {"id": "atlas", "direction": "out", "types": ["TESTS_WITH"]})
            nbj = json.loads(text_of(nb))
            assert [n["id"] for n in nbj["neighbors"]] == ["quickparse"], nbj

            path = json.loads(text_of(await session.call_tool("graph_path", {"from": "atlas", "to": "quickparse"})))
            assert path["found"] is True and path["hops"][0]["to"] == "quickparse", path

            stats = json.loads(text_of(await session.call_tool("graph_stats", {})))
            assert stats["nodes"] == 4 and stats["edges"] >= 5, stats

            ex = json.loads(text_of(await session.call_tool("explain_edge", {"from": "atlas", "type": "TESTS_WITH", "to": "quickparse"})))
            assert ex["exists"] and [r["rule"] for r in ex["rules"]] == ["bench-run", "testing-command", "testing-cues"], ex

            link = json.loads(text_of(await session.call_tool("link", {"from": "atlas", "type": "USES", "to": "ecsdemo", "evidence": "told by the agent"})))
            assert link["seq"] is not None, link
            again = json.loads(text_of(await session.call_tool("link", {"from": "atlas", "type": "USES", "to": "ecsdemo", "evidence": "told by the agent"})))
            assert again["seq"] is None, again
            unl = json.loads(text_of(await session.call_tool("unlink", {"from": "atlas", "type": "USES", "to": "ecsdemo"})))
            assert unl["seq"] is not None, unl

            # Routed search: snippets, then one in full, then feedback.
            sc = await session.call_tool("scry", {"query": "cosine similarity of two vectors", "project": "atlas", "limit": 8})
            snip = text_of(sc)
            assert not is_error(sc), snip
            assert "vectorlite/distance.py" in snip and "route: via atlas" in snip and "[vectorlite:" in snip, snip
            qid = snip.split()[1]
            assert qid.startswith("q"), snip
            n_results = sum(1 for line in snip.splitlines() if line[:1].isdigit())
            full = ""
            for rank in range(1, n_results + 1):
                d = await session.call_tool("scry_detail", {"query_id": qid, "rank": rank})
                assert not is_error(d), text_of(d)
                full += text_of(d)
            assert "def cosine_similarity" in full, full[:500]
            report["scry_bytes"] = len(snip.encode())
            report["scry_tokens_approx"] = len(snip) // 4
            report["full_content_bytes"] = len(full.encode())
            report["full_content_tokens_approx"] = len(full) // 4
            report["scry_results"] = n_results
            tiny = text_of(await session.call_tool("scry", {"query": "vector index search", "project": "atlas", "max_tokens": 100}))
            assert "omitted" in tiny, tiny
            fb = json.loads(text_of(await session.call_tool("feedback", {"query_id": qid, "rank": 1, "useful": True})))
            assert fb["recorded"] is True and fb["project"] == "atlas", fb
            # Knowledge: observe, relate (with its rules), build_context, get_observation,
            # unrelate; observations join scry results.
            o1 = json.loads(text_of(await session.call_tool("observe", {"text": "Cosine similarity normalises both vectors before the dot product", "kind": "lesson", "facets": ["vectors"], "project": "atlas"})))
            o2 = json.loads(text_of(await session.call_tool("observe", {"text": "Prefer brute-force flat search below ten thousand vectors", "kind": "decision", "project": "atlas"})))
            assert o1["recorded"] and o2["recorded"], (o1, o2)
            rel = json.loads(text_of(await session.call_tool("relate", {"from": o2["id"], "to": o1["id"], "type": "follows", "note": "same session"})))
            assert rel["added"] == 1, rel
            dup = await session.call_tool("relate", {"from": o2["id"], "to": o1["id"], "type": "follows"})
            assert is_error(dup) and "already" in text_of(dup), text_of(dup)
            selfrel = await session.call_tool("relate", {"from": o1["id"], "to": o1["id"]})
            assert is_error(selfrel) and "itself" in text_of(selfrel), text_of(selfrel)
            bc = text_of(await session.call_tool("build_context", {"id": o1["id"]}))
            assert o2["id"] in bc and "follows" in bc, bc
            go = text_of(await session.call_tool("get_observation", {"id": o2["id"]}))
            assert "brute-force flat search" in go and "follows" in go, go
            sk = text_of(await session.call_tool("scry", {"query": "should cosine similarity normalise the vectors first", "project": "atlas"}))
            assert "[observation]" in sk, sk
            un = json.loads(text_of(await session.call_tool("unrelate", {"from": o2["id"], "to": o1["id"]})))
            assert un["removed"] == 1, un
            report["observations"] = [o1["id"], o2["id"]]

            bad_q = await session.call_tool("scry_detail", {"query_id": "q9999", "rank": 1})
            assert is_error(bad_q) and "unknown query id" in text_of(bad_q)
            scry_samples = []
            for _ in range(50):
                start = time.perf_counter()
                r = await session.call_tool("scry", {"query": "parser combinator identifiers", "project": "atlas"})
                scry_samples.append((time.perf_counter() - start) * 1000)
                assert not is_error(r), text_of(r)
            scry_samples.sort()
            report["scry_latency_ms"] = {"p50": scry_samples[25], "p95": scry_samples[47]}

            # Errors are tool errors with clear messages; the server survives them.
            bad = await session.call_tool("graph_neighbors", {"id": "nope"})
            assert is_error(bad) and "unknown node 'nope'" in text_of(bad), text_of(bad)
            wrong = await session.call_tool("graph_neighbors", {"id": 5})
            assert is_error(wrong), text_of(wrong)
            badtype = await session.call_tool("explain_edge", {"from": "atlas", "type": "LIKES", "to": "ecsdemo"})
            assert is_error(badtype) and "LIKES" in text_of(badtype)
            try:
                unknown = await session.call_tool("no_such_tool", {})
                assert is_error(unknown), "unknown tool must fail"
            except MCPError as err:
                report["unknown_tool_error"] = str(err)
            big = await session.call_tool("context", {"project": "atlas", "topic": "x" * 1_000_000})
            assert is_error(big) and "limit" in text_of(big), text_of(big)[:200]

            # Still alive: latency over 200 calls.
            samples = []
            for _ in range(200):
                start = time.perf_counter()
                r = await session.call_tool("graph_neighbors", {"id": "atlas"})
                samples.append((time.perf_counter() - start) * 1000)
                assert not is_error(r)
            samples.sort()
            report["neighbors_latency_ms"] = {"p50": samples[100], "p95": samples[190]}
            report["context_bytes"] = len(body.encode())
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
