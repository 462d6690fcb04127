"""vectorlite: a minimal vector index (flat and HNSW-style)."""

from .distance import cosine_similarity, normalize
from .flat import FlatIndex
from .hnsw import HnswIndex

__all__ = ["cosine_similarity", "normalize", "FlatIndex", "HnswIndex"]
