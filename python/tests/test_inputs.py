"""Graph inputs: every form gives the same graph, with the caller's node ids; results carry the run's statistics."""

import threading

import networkx as nx
import numpy as np
import scipy.sparse as sp

import irgc
from conftest import data, program


def test_every_input_form_gives_the_same_levels():
    rng = np.random.default_rng(0)
    src = rng.integers(0, 500, 3000)
    dst = rng.integers(0, 500, 3000)
    a = sp.coo_array((np.ones(3000), (src, dst)), shape=(500, 500))
    p = program("bfs/bfs_worklist.irg")
    runs = [
        p.run((src, dst), params={"source": 7}),
        p.run((src, dst, rng.random(3000)), params={"source": 7}),
        p.run(a, params={"source": 7}),
        p.run(a.tocsr(), params={"source": 7}),
        p.run(sp.csc_matrix(a), params={"source": 7}),
        p.run(nx.DiGraph(zip(src.tolist(), dst.tolist())), params={"source": 7}),
    ]
    digest = {r.digest for r in runs[:5]}
    assert len(digest) == 1  # identical outputs, bit for bit
    by_id = dict(zip(runs[-1].nodes.tolist(), runs[-1]["level"].tolist()))
    assert [by_id.get(i, 2**32 - 1) for i in range(500)] == runs[0]["level"].tolist()


def test_string_node_ids_in_params_and_node_outputs():
    g = nx.Graph([("a", "b"), ("b", "c"), ("c", "d"), ("x", "y")])
    r = program("bfs/bfs_worklist.irg").run(g, params={"source": "b"})
    assert r.nodes.dtype == object
    assert dict(zip(r.nodes, r["level"].tolist()))["d"] == 2
    assert r.absent("level").tolist() == [False, False, False, False, True, True]
    cc = program("cc/rem.irg").run(g)
    parent = dict(zip(cc.nodes, cc["parent"]))
    assert parent["a"] == parent["d"] != parent["x"] == parent["y"]
    assert set(parent.values()) <= set(g.nodes)
    m = program("matching/suitor.irg").run(nx.Graph([("a", "b", {"weight": 2}), ("b", "c", {"weight": 1})]))
    assert dict(zip(m.nodes, m["mate"])) == {"a": "b", "b": "a", "c": None}


def test_sparse_integer_ids_are_kept():
    g = nx.Graph([(10, 20, {"weight": 1}), (20, 30, {"weight": 5}), (30, 40, {"weight": 1}), (99, 98)])
    r = program("bfs/bfs_worklist.irg").run(g, params={"source": 40})
    assert r.nodes.tolist() == [10, 20, 30, 40, 99, 98]
    assert r["level"].tolist()[:4] == [3, 2, 1, 0]
    m = program("matching/suitor.irg").run(g)
    mate = dict(zip(r.nodes.tolist(), m["mate"].tolist()))
    assert mate[99] == 98 and mate[98] == 99
    assert all(v == -1 or mate[v] == k for k, v in mate.items())


def test_weights_from_networkx(karate):
    g = irgc.graph(karate)
    _, _, w = g.csr()
    assert w.dtype == np.int64 and w.min() >= 1
    assert g.num_edges == 2 * karate.number_of_edges()
    assert irgc.graph(karate, weight=None).csr()[2] is None
    fl = nx.Graph()
    fl.add_edge(0, 1, cost=0.5)
    fl.add_edge(1, 2)
    assert irgc.graph(fl, weight="cost").csr()[2].tolist() == [0.5, 0.5, 1.0, 1.0]


def test_file_cache_and_statistics(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # a fresh cache: the first load writes it
    path = data("delaunay_n15.graph.xz")
    first = irgc.load(path)
    second = irgc.load(path)
    assert first.cache in ("written", "rebuilt") and second.cache == "hit"
    assert irgc.load(path, cache=False).cache is None
    assert list((tmp_path / "irgc").iterdir())
    r = program("bfs/bfs_worklist.irg").run(second, threads=2, verify=True)
    assert r.threads == 2 and r.backend == "cpu"
    assert r.launches > 10 and r.compute_seconds > 0 and r.setup_seconds > 0
    parts = r.setup_parts_seconds
    assert set(parts) == {"device", "graph", "renumbering", "weights", "sources", "arrays", "worklists"}
    assert parts["graph"] > 0 and sum(parts.values()) <= r.setup_seconds
    assert len(r.stats["launches"]) == r.launches
    assert r.verification[0]["reference"].startswith("BFS")
    assert r.kind("level") == ("node", "u32", "unreached")


def test_a_run_without_statistics_gives_the_same_answer_and_keeps_what_every_run_keeps():
    g = irgc.generate("grid:w=30,h=30")
    p = program("pagerank/pagerank.irg")
    # One thread: the float sums then add in one order, so the two runs match bit for bit.
    with_stats = p.run(g, threads=1, verify=True)
    without = p.run(g, threads=1, verify=True, stats=False)
    assert without.digest == with_stats.digest and without.launches == with_stats.launches
    assert len(with_stats.stats["launches"]) == with_stats.launches
    assert without.stats["launches"] == [] and without.stats["pipe_rounds"] == []
    assert without.printed == with_stats.printed and without.printed, "a plan's prints are kept either way"


def test_concurrent_runs_share_a_program():
    g = irgc.generate("rmat:scale=12,ef=8,seed=1")
    p = program("bfs/bfs_worklist.irg")
    expected = p.run(g).digest
    digests = []

    def work():
        for _ in range(3):
            digests.append(p.run(g, threads=1).digest)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert digests == [expected] * 12


def test_csv_table_with_a_header_and_chosen_columns(tmp_path):
    # The same path 100 - 200 - 300 with weights, as pandas would export it, columns picked by name.
    table = tmp_path / "edges.csv"
    table.write_text("weight,from,to\n5,100,200\n7,200,300\n")
    g = irgc.load(table, columns="from,to,weight", cache=False)
    assert (g.num_nodes, g.num_edges) == (3, 2)
    r = program("sssp/sssp_worklist.irg").run(g, params={"source": 100}, verify=True)
    assert dict(zip(r.nodes.tolist(), r["dist"].tolist())) == {100: 0, 200: 5, 300: 12}


def test_an_undirected_program_on_a_directed_graph_is_fitted_and_says_so():
    g = nx.DiGraph([(0, 1), (1, 2), (3, 2)])
    r = program("bfs/bfs_do.irg").run(g, params={"source": 0}, verify=True)
    assert r.adjusted and r.adjusted[0].startswith("symmetrized")
    assert r["level"].tolist() == [0, 1, 2, 3]
    r = program("bfs/bfs_worklist.irg").run(g, params={"source": 0})
    assert r.adjusted == []


def test_plan_prints_reach_python():
    src = (
        "graph G;\nnode x: u32 = 0;\noutput x;\n"
        "kernel count() -> sum u64 { forall v in G.nodes { reduce 1; } }\n"
        "plan { let n = count(); print(n, n * 2); }\n"
    )
    r = irgc.compile(src).run(nx.path_graph(5))
    assert [(p["label"], p["text"]) for p in r.printed] == [("n", "5"), ("n * 2", "10")]
