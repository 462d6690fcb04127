"""Exact (brute-force) nearest-neighbour search."""

import heapq

from .distance import dot, normalize


class FlatIndex:
    """Stores every vector and scores all of them for each query.

    Exact, simple, and fast enough below ~50k vectors.
    """

    def __init__(self, dim):
        self.dim = dim
        self.ids = []
        self.vectors = []

    def add(self, item_id, vector):
        """Add one vector under item_id (normalised on the way in)."""
        if len(vector) != self.dim:
            raise ValueError("expected %d dimensions, got %d" % (self.dim, len(vector)))
        self.ids.append(item_id)
        self.vectors.append(normalize(vector))

    def remove(self, item_id):
        """Remove a vector by id; returns False when it was not there."""
        try:
            i = self.ids.index(item_id)
        except ValueError:
            return False
        del self.ids[i]
        del self.vectors[i]
        return True

    def search(self, query, k=10):
        """The k most similar stored vectors as (id, cosine) pairs, best first."""
        q = normalize(query)
        scored = ((dot(q, v), item_id) for item_id, v in zip(self.ids, self.vectors))
        best = heapq.nlargest(k, scored)
        return [(item_id, score) for score, item_id in best]

    def __len__(self):
        return len(self.ids)
