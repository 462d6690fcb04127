"""A small HNSW-style graph index: approximate nearest neighbours."""

import heapq
import math
import random

from .distance import dot, normalize


class HnswIndex:
    """Hierarchical navigable small-world graph.

    Every node appears on layer 0 and, with geometrically falling probability, on higher
    layers. Each node keeps up to `m` links per layer. Searches enter at the top layer,
    walk greedily down, and run a beam search of width `ef` on layer 0.
    """

    def __init__(self, dim, m=8, ef=32, seed=7):
        self.dim = dim
        self.m = m
        self.ef = ef
        self.vectors = {}
        self.layers = []  # layer -> {node: [neighbours]}
        self.entry = None
        self.rng = random.Random(seed)
        self.level_mult = 1.0 / math.log(max(m, 2))

    def _random_level(self):
        return int(-math.log(1.0 - self.rng.random()) * self.level_mult)

    def _similarity(self, a, b):
        return dot(self.vectors[a], self.vectors[b])

    def add(self, item_id, vector):
        """Insert a vector, linking it to its nearest neighbours on each of its layers."""
        self.vectors[item_id] = normalize(vector)
        level = self._random_level()
        while len(self.layers) <= level:
            self.layers.append({})
        if self.entry is None:
            for layer in range(level + 1):
                self.layers[layer][item_id] = []
            self.entry = item_id
            return
        current = self.entry
        for layer in range(len(self.layers) - 1, level, -1):
            current = self._greedy(item_id, current, layer)
        for layer in range(min(level, len(self.layers) - 1), -1, -1):
            candidates = self._beam(self.vectors[item_id], [current], layer, self.ef)
            neighbours = [n for _, n in candidates[: self.m]]
            self.layers[layer][item_id] = neighbours
            for n in neighbours:
                links = self.layers[layer].setdefault(n, [])
                links.append(item_id)
                if len(links) > self.m:
                    links.sort(key=lambda other: -self._similarity(n, other))
                    del links[self.m:]
            if candidates:
                current = candidates[0][1]
        if level >= len(self.layers) - 1 and level > 0:
            self.entry = item_id

    def _greedy(self, item_id, start, layer):
        """Walk to the neighbour closest to item_id until no neighbour is closer."""
        best, best_sim = start, self._similarity(item_id, start)
        improved = True
        while improved:
            improved = False
            for n in self.layers[layer].get(best, []):
                sim = self._similarity(item_id, n)
                if sim > best_sim:
                    best, best_sim, improved = n, sim, True
        return best

    def _beam(self, query, entries, layer, width):
        """Best-first search keeping the `width` most similar nodes seen."""
        visited = set(entries)
        frontier = [(-dot(query, self.vectors[e]), e) for e in entries]
        heapq.heapify(frontier)
        found = [(-s, e) for s, e in frontier]
        while frontier:
            neg_sim, node = heapq.heappop(frontier)
            if len(found) >= width and -neg_sim < min(found)[0]:
                break
            for n in self.layers[layer].get(node, []):
                if n in visited:
                    continue
                visited.add(n)
                sim = dot(query, self.vectors[n])
                heapq.heappush(frontier, (-sim, n))
                found.append((sim, n))
        found.sort(reverse=True)
        return found[:width]

    def search(self, query, k=10):
        """Approximately the k most similar vectors as (id, cosine), best first."""
        if self.entry is None:
            return []
        q = normalize(query)
        current = self.entry
        for layer in range(len(self.layers) - 1, 0, -1):
            best = self._beam(q, [current], layer, 1)
            current = best[0][1]
        return [(n, s) for s, n in self._beam(q, [current], 0, max(self.ef, k))[:k]]
