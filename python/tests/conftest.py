"""Shared fixtures: the repository's programs, the shared real graphs (../shared/data beside the clone, as the
Rust tests expect them), and independent readers of those files for the references."""

import lzma
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import irgc

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "programs"
DATA = ROOT.parent / "shared" / "data"


def program(rel):
    return irgc.compile(PROGRAMS / rel)


def data(name):
    path = DATA / name
    if not path.exists():
        pytest.fail(f"the shared test graph {path} is missing (the project's shared/data folder beside the clone)")
    return path


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Graph files load through irgc's binary cache: keep it out of the user's home."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture(scope="session")
def karate():
    return nx.karate_club_graph()


@pytest.fixture(scope="session")
def wiki_vote():
    """wiki-Vote as a NetworkX DiGraph read here (not by irgc): SNAP `u<TAB>v` lines with sparse ids."""
    g = nx.DiGraph()
    with lzma.open(data("wiki-Vote.txt.xz"), "rt") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            u, v = line.split()
            g.add_edge(int(u), int(v))
    return g


@pytest.fixture(scope="session")
def luxembourg():
    """road-luxembourg-osm as a symmetric SciPy matrix read by scipy.io.mmread (1-based ids 1..n)."""
    with lzma.open(data("road-luxembourg-osm.mtx.xz"), "rb") as f:
        m = sp.csr_array(scipy.io.mmread(f))
    return ((m + m.T) != 0).astype(np.int64)


def undirected_edges(csr_graph):
    """(u, v) index pairs of every stored edge of an irgc.Graph."""
    row, col, _ = csr_graph.csr()
    src = np.repeat(np.arange(len(row) - 1), np.diff(row.astype(np.int64)))
    return src, col.astype(np.int64)


def same_partition(a, b):
    """Whether labellings `a` and `b` (one label per node, any values) group the nodes the same way."""
    a = np.asarray(a)
    b = np.asarray(b)
    assert a.shape == b.shape
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))
