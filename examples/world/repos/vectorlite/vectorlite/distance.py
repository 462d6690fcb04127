"""Similarity measures between vectors."""

import math


def dot(a, b):
    """Sum of the element-wise products of two equally long sequences."""
    return sum(x * y for x, y in zip(a, b))


def norm(a):
    """Euclidean length of a vector."""
    return math.sqrt(dot(a, a))


def normalize(a):
    """Scale a vector to unit length; the zero vector stays zero."""
    n = norm(a)
    if n == 0.0:
        return list(a)
    return [x / n for x in a]


def cosine_similarity(a, b):
    """Cosine of the angle between a and b: 1.0 when they point the same way."""
    na, nb = norm(a), norm(b)
    if na == 0.0 or nb == 0.0:
        return 0.0
    return dot(a, b) / (na * nb)


def euclidean(a, b):
    """Straight-line distance between two points."""
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))
