"""BFS levels from programs/bfs/bfs_worklist.irg against NetworkX and SciPy, with node ids as the caller's."""

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

import irgc
from conftest import ROOT, data, program


def nx_levels(g, source, nodes):
    ref = nx.single_source_shortest_path_length(g, source)
    return np.array([ref.get(v, -1) for v in nodes])


def levels(r):
    """The level output with unreached nodes as -1."""
    return np.where(r.absent("level"), -1, r["level"].astype(np.int64))


def test_the_readme_example(monkeypatch, capsys):
    """The README's five lines, verbatim, from the repository's root."""
    monkeypatch.chdir(ROOT)
    import irgc, networkx as nx; g = nx.karate_club_graph(); r = irgc.compile("programs/bfs/bfs_worklist.irg").run(g, params={"source": 0}); print(r["level"])  # noqa: E401,E702,E501
    ref = nx.single_source_shortest_path_length(g, 0)
    assert r["level"].dtype == np.uint32
    assert [int(x) for x in r["level"]] == [ref[v] for v in g.nodes]
    assert capsys.readouterr().out.startswith("[0 1 1 1 1 1 1 1 1 2 ")
    assert list(r.nodes) == list(g.nodes)


def test_every_source_of_karate(karate):
    p = program("bfs/bfs_worklist.irg")
    for s in karate.nodes:
        r = p.run(karate, params={"source": s}, verify=True)
        assert (levels(r) == nx_levels(karate, s, r.nodes)).all()


def test_wiki_vote_directed_with_sparse_ids(wiki_vote):
    """The file through irgc's loader (SNAP ids kept as the node ids) against NetworkX's BFS on its own reading."""
    g = irgc.load(data("wiki-Vote.txt.xz"))
    assert g.num_nodes == wiki_vote.number_of_nodes()
    assert g.num_edges == wiki_vote.number_of_edges()
    assert set(g.nodes.tolist()) == set(wiki_vote.nodes)
    p = program("bfs/bfs_worklist.irg")
    source = max(wiki_vote.nodes, key=wiki_vote.out_degree)
    r = p.run(g, params={"source": source}, verify=True)
    assert r.verification and r.verification[0]["output"] == "level"
    got = levels(r)
    assert (got == nx_levels(wiki_vote, source, r.nodes)).all()
    assert (got == -1).any() and (got > 2).any()  # directed: some nodes unreached, and more than a star


def test_networkx_digraph_and_its_reverse(wiki_vote):
    p = program("bfs/bfs_worklist.irg")
    sub = wiki_vote.subgraph(list(wiki_vote.nodes)[:1500]).copy()
    source = max(sub.nodes, key=sub.out_degree)
    for g in (sub, sub.reverse()):
        r = p.run(g, params={"source": source})
        assert (levels(r) == nx_levels(g, source, r.nodes)).all()


def test_delaunay_against_scipy():
    g = irgc.load(data("delaunay_n15.graph.xz"))
    row, col, _ = g.csr()
    n = g.num_nodes
    m = sp.csr_array((np.ones(len(col)), col.astype(np.int64), row.astype(np.int64)), shape=(n, n))
    p = program("bfs/bfs_worklist.irg")
    for index in (0, n // 2):
        source = g.nodes[index]  # METIS ids are 1-based
        r = p.run(g, params={"source": source})
        ref = shortest_path(m, unweighted=True, indices=index)
        assert np.isfinite(ref).all()
        assert (levels(r) == ref.astype(np.int64)).all()


def test_generated_graph_verifies():
    g = irgc.generate("rmat:scale=10,ef=8,seed=3")
    r = program("bfs/bfs_worklist.irg").run(g, verify=True)
    assert g.name == "gen:rmat:scale=10,ef=8,seed=3"
    assert r.verification[0]["output"] == "level"
