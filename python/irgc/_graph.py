"""Graphs from Python objects: each input is flattened here into edge arrays of node indices (0..n-1), the
caller's node ids are kept beside them, and the native side builds the CSR as every irgc loader does."""

import os

import numpy as np

from . import _native
from ._native import GraphError

# Node indices are uint32 and u32::MAX means "no node" inside programs.
_MAX_NODES = 2**32 - 1


class Graph:
    """A graph ready for ``Program.run``: the runtime's CSR, plus the caller's id of every node.

    ``nodes[i]`` is the id the caller gave node ``i``: the NetworkX node, the row of a matrix, the id written in
    a file. Node-valued outputs and node params are translated through it.
    """

    def __init__(self, native, ids=None, index=None):
        self._native = native
        self._ids = ids
        self._index = index  # id -> node index, where the conversion built one (NetworkX)

    # ----- construction -----

    @classmethod
    def from_edges(cls, src, dst, weight=None, *, num_nodes=None, nodes=None, directed=True,
                   drop_self_loops=False, dedupe=False, name="edges"):
        """Edges ``src[i] -> dst[i]`` between node indices 0..num_nodes-1 (default: one more than the largest).

        ``weight``: one per edge, integers (kept as int64) or floats (float64). ``nodes``: the caller's id of
        each node (default: the index itself). ``directed=False`` adds the reverse of every edge and keeps one
        edge per (source, destination) pair.
        """
        src = _indices(src, "src")
        dst = _indices(dst, "dst")
        if num_nodes is None:
            num_nodes = int(max(src.max(initial=-1), dst.max(initial=-1))) + 1
        num_nodes = int(num_nodes)
        if not 0 <= num_nodes < _MAX_NODES:
            raise GraphError(f"num_nodes={num_nodes} is out of range (0 to {_MAX_NODES - 1})")
        w, is_float = _weights(weight)
        ids, labels = _ids(nodes, num_nodes)
        native = _native.Graph.from_edges(
            num_nodes, src.astype("<u4").tobytes(), dst.astype("<u4").tobytes(), w, is_float, labels,
            symmetrize=not directed, drop_self_loops=drop_self_loops, dedupe=dedupe or not directed, name=name)
        return cls(native, ids)

    @classmethod
    def from_scipy(cls, matrix, *, weighted=True, name="scipy"):
        """A square sparse matrix (CSR, CSC, COO, ... arrays or matrices): entry (i, j) is an edge i -> j, of
        weight ``A[i, j]`` unless ``weighted=False``. Stored entries are edges even when zero; a symmetric
        matrix is an undirected graph (both directions stored)."""
        coo = matrix.tocoo()
        n, m = coo.shape
        if n != m:
            raise GraphError(f"an adjacency matrix must be square, not {n} x {m}")
        weight = coo.data if weighted else None
        return cls.from_edges(coo.row, coo.col, weight, num_nodes=n, name=name)

    @classmethod
    def from_networkx(cls, g, *, weight="weight"):
        """A NetworkX ``Graph`` (each edge in both directions) or ``DiGraph``. ``weight`` names the edge
        attribute holding weights (edges without it weigh 1; no weights at all if no edge has it, or if
        ``weight=None``). Node ids are ``list(g.nodes)``, in that order."""
        if g.is_multigraph():
            raise GraphError("multigraphs are not supported: convert to nx.Graph or nx.DiGraph first")
        nodes = list(g.nodes)
        index = {v: i for i, v in enumerate(nodes)}
        m = g.number_of_edges()
        src = np.empty(m, dtype=np.int64)
        dst = np.empty(m, dtype=np.int64)
        edges = g.edges(data=weight, default=None) if weight is not None else ((u, v, None) for u, v in g.edges())
        ws = []
        for k, (u, v, w) in enumerate(edges):
            src[k] = index[u]
            dst[k] = index[v]
            ws.append(w)
        w = None
        if any(x is not None for x in ws):
            w = np.asarray([1 if x is None else x for x in ws])
        ids = _node_ids(nodes)
        name = f"networkx:{type(g).__name__}"
        graph = cls.from_edges(src, dst, w, num_nodes=len(nodes), nodes=ids, directed=g.is_directed(), name=name)
        graph._index = index
        return graph

    @classmethod
    def load(cls, path, *, format=None, symmetrize=False, drop_self_loops=False, dedupe=False, weights=None,
             cache=True, columns=None):
        """A graph file in any format ``irgc run --graph`` reads (MatrixMarket, DIMACS, METIS, SNAP edge lists,
        CSV/TSV tables, WebGraph ASCII, ...; compressed or not), through the same binary cache unless
        ``cache=False``. The options are ``irgc run``'s: ``weights`` is ``"const:W"`` or
        ``"random:LO:HI[:SEED]"``; ``symmetrize`` also drops self loops and duplicates; ``columns`` picks a
        table's source, destination and weight columns (``"src,dst,weight"``, by header name or 0-based index)."""
        native = _native.Graph.load(os.fspath(path), format, symmetrize, drop_self_loops, dedupe, weights, cache,
                                    columns)
        return cls(native)

    # ----- what a graph is -----

    @property
    def num_nodes(self):
        return self._native.num_nodes

    @property
    def num_edges(self):
        """Directed edges as stored: an undirected edge counts twice."""
        return self._native.num_edges

    @property
    def name(self):
        return self._native.name

    @property
    def cache(self):
        """For a file: "hit", "written" or "rebuilt" (the binary cache), or None when it was not used."""
        return self._native.cache

    @property
    def nodes(self):
        """The caller's id of every node, by node index (int64, or object for non-integer NetworkX nodes)."""
        if self._ids is None:
            base, ids = self._native.labels()
            if ids is None:
                self._ids = np.arange(self.num_nodes, dtype=np.int64) + base
            else:
                self._ids = np.frombuffer(ids, dtype="<u8").astype(np.int64)
        return self._ids

    def csr(self):
        """The CSR arrays: ``(row_start, col, weights)``: node i's out-edges are ``col[row_start[i]:row_start[i+1]]``
        (node indices, sorted); ``weights`` is per edge (int64 or float64) or None. Edge outputs use this order."""
        row, col, w, is_float = self._native.csr()
        weights = None if w is None else np.frombuffer(w, dtype="<f8" if is_float else "<i8")
        return np.frombuffer(row, dtype="<u8"), np.frombuffer(col, dtype="<u4"), weights

    def index_of(self, node):
        """The node index of the caller's id ``node``; KeyError if the graph has no such node."""
        if self._index is not None:
            return self._index[node]
        ids = self.nodes
        if ids.dtype != object:
            if isinstance(node, (bool, np.bool_)) or not isinstance(node, (int, np.integer)):
                raise KeyError(node)
            hits = np.flatnonzero(ids == node)
            if hits.size:
                return int(hits[0])
            raise KeyError(node)
        self._index = {v: i for i, v in enumerate(ids)}
        return self._index[node]

    def ids_of(self, indices, absent):
        """Node indices (``absent`` marks "no node") as the caller's ids: -1 (integer ids) or None there."""
        ids = self.nodes
        present = ~absent
        if ids.dtype == object:
            out = np.full(indices.shape, None, dtype=object)
        else:
            out = np.full(indices.shape, -1, dtype=np.int64)
        out[present] = ids[indices[present]]
        return out

    def __repr__(self):
        return f"<irgc.Graph {self.name}: {self.num_nodes} nodes, {self.num_edges} edges>"


def graph(obj, *, weight="weight"):
    """Any supported input as a ``Graph``: a Graph, a NetworkX graph, a SciPy sparse matrix, a ``(src, dst)``
    or ``(src, dst, weight)`` tuple of arrays, or a path to a graph file. ``weight`` names the NetworkX edge
    attribute (None: unweighted)."""
    if isinstance(obj, Graph):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return Graph.load(obj)
    if hasattr(obj, "is_directed") and hasattr(obj, "edges") and hasattr(obj, "nodes"):
        return Graph.from_networkx(obj, weight=weight)
    if hasattr(obj, "tocoo") and hasattr(obj, "shape"):
        return Graph.from_scipy(obj)
    if isinstance(obj, tuple) and len(obj) in (2, 3):
        return Graph.from_edges(*obj)
    raise GraphError(
        f"cannot make a graph of a {type(obj).__name__}: expected a NetworkX graph, a SciPy sparse matrix, "
        "a (src, dst[, weight]) tuple of arrays, a file path or an irgc.Graph")


def load(path, **options):
    """``Graph.load``: a graph file, as ``irgc run --graph FILE`` reads it."""
    return Graph.load(path, **options)


def generate(spec):
    """A generated graph, as ``irgc run --graph gen:SPEC``: e.g. ``generate("rmat:scale=16,ef=16,seed=1")``."""
    return Graph(_native.Graph.generate(spec))


def _indices(a, what):
    """Node indices as a non-negative int64 array, or GraphError."""
    try:
        arr = np.asarray(a)
    except Exception as e:  # noqa: BLE001 - any conversion failure is a bad input
        raise GraphError(f"{what}: not an array of node indices ({e})") from None
    if arr.ndim != 1:
        raise GraphError(f"{what}: expected a 1-D array of node indices, got shape {arr.shape}")
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise GraphError(f"{what}: node indices must be integers, not {arr.dtype}")
    if arr.min() < 0 or arr.max() >= _MAX_NODES:
        raise GraphError(f"{what}: node indices must lie in 0..{_MAX_NODES - 1}")
    return arr.astype(np.int64)


def _weights(w):
    """Per-edge weights as (little-endian bytes, is_float), or (None, False)."""
    if w is None:
        return None, False
    arr = np.asarray(w)
    if arr.dtype.kind in "biu":
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
            raise GraphError("weights above 2^63 - 1 are not supported")
        return arr.astype("<i8").tobytes(), False
    if arr.dtype.kind == "f":
        return arr.astype("<f8").tobytes(), True
    raise GraphError(f"weights must be numbers, not {arr.dtype}")


def _node_ids(nodes):
    """The caller's node ids as an array: int64 when every id is an integer, else object."""
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in nodes):
        try:
            return np.asarray(nodes, dtype=np.int64)
        except OverflowError:
            pass
    return np.fromiter(nodes, dtype=object, count=len(nodes))


def _ids(nodes, num_nodes):
    """(ids array or None, uint64 label bytes for the runtime or None) for the caller's ``nodes``."""
    if nodes is None:
        return None, None
    ids = nodes if isinstance(nodes, np.ndarray) and nodes.dtype == object else _node_ids(list(nodes))
    if len(ids) != num_nodes:
        raise GraphError(f"{len(ids)} node ids for {num_nodes} nodes")
    if ids.dtype == object or (ids.size and ids.min() < 0):
        return ids, None  # the runtime keeps its indices; Python translates
    if np.array_equal(ids, np.arange(num_nodes)):
        return ids, None
    return ids, ids.astype("<u8").tobytes()
