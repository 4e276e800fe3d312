"""Every failure is a Python exception of the right class with the CLI's message, never a crash."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import irgc
from conftest import PROGRAMS, program


def test_bad_source_raises_the_rendered_diagnostics():
    with pytest.raises(irgc.CompileError) as e:
        irgc.compile("graph G;\nplan { x = ; }\n")
    text = str(e.value)
    assert "<source>:2:12" in text
    assert "expected an expression" in text
    assert "plan { x = ; }" in text  # the source line, as `irgc check` shows it
    assert "\x1b[" not in text
    assert isinstance(e.value, irgc.IrgcError)


def test_type_error_names_the_file(tmp_path):
    path = tmp_path / "wrong.irg"
    path.write_text("graph G;\nnode level: u32 = 0;\noutput level;\nplan { level[0] = true; }\n")
    with pytest.raises(irgc.CompileError, match=r"wrong\.irg:4:"):
        irgc.compile(path)


def test_missing_file():
    with pytest.raises(irgc.CompileError, match="cannot read .*no_such.irg"):
        irgc.compile("programs/no_such.irg")


def test_unknown_optimizer_pass():
    with pytest.raises(ValueError, match="no optimizer pass `nope`"):
        irgc.compile(PROGRAMS / "bfs/bfs_worklist.irg", disable_passes=["nope"])


def test_pass_params(karate):
    with pytest.raises(ValueError, match=r"`interleave\.factor` is iterations at once; it takes 2, 4, 8, not `3`"):
        irgc.compile(PROGRAMS / "bfs/bfs_worklist.irg", pass_params={"interleave.factor": 3})
    with pytest.raises(ValueError, match=r"no pass parameter `np\.width`"):
        irgc.compile(PROGRAMS / "bfs/bfs_worklist.irg", pass_params={"np.width": 2})
    p = irgc.compile(PROGRAMS / "bfs/bfs_worklist.irg", pass_params={"interleave.factor": 8, "unroll.factor": 2})
    assert p.run(karate, verify=True).verification[0]["output"] == "level"  # a failed check raises


def test_bad_params(karate):
    p = program("bfs/bfs_worklist.irg")
    with pytest.raises(irgc.ParamError, match="unknown param `src`.*params source"):
        p.run(karate, params={"src": 0})
    with pytest.raises(irgc.ParamError, match="the graph has no node 99"):
        p.run(karate, params={"source": 99})
    with pytest.raises(irgc.ParamError, match="no node 'zero'"):
        p.run(karate, params={"source": "zero"})
    q = program("coloring/ipgc_hybrid.irg")
    with pytest.raises(irgc.ParamError, match="bad value `abc` for param `H`"):
        q.run(karate, params={"H": "abc"})
    with pytest.raises(irgc.ParamError, match="param `seed`"):
        q.run(karate, params={"seed": -1})
    assert isinstance(irgc.ParamError("x"), irgc.RunError)


def test_bad_run_options(karate):
    p = program("bfs/bfs_worklist.irg")
    with pytest.raises(ValueError, match="backend must be"):
        p.run(karate, backend="tpu")
    with pytest.raises(ValueError, match="at least 1"):
        p.run(karate, threads=0)
    with pytest.raises(ValueError, match="applies to backend=\"cpu\" only"):
        p.run(karate, backend="cuda", threads=2)


def test_unweighted_graph_for_a_weighted_program(karate):
    with pytest.raises(irgc.GraphError, match="weight"):
        program("sssp/sssp_worklist.irg").run(karate, weight=None)


def test_failed_verification_raises():
    """A BFS whose levels past the source are one too high is caught by verify=True, and runs without it."""
    text = (PROGRAMS / "bfs/bfs_worklist.irg").read_text().replace("depth + 1", "depth + 2")
    wrong = irgc.compile(text)
    g = nx.path_graph(5)
    assert wrong.run(g)["level"].tolist() == [0, 2, 3, 4, 5]
    with pytest.raises(irgc.VerificationError, match="verification of output `level`"):
        wrong.run(g, verify=True)


def test_nothing_to_verify(karate):
    text = "graph G;\nnode x: u32 = 0;\noutput x;\nkernel k() { forall v in G.nodes { x[v] = 1; } }\nplan { k(); }\n"
    p = irgc.compile(text)
    assert (p.run(karate)["x"] == 1).all()
    with pytest.raises(irgc.RunError, match="no checkable output"):
        p.run(karate, verify=True)


def test_cuda_without_a_gpu_raises_or_runs(karate):
    """On a machine without a GPU the CUDA backend says so as a CudaError; with one it must give NetworkX's
    levels (the same driver code as `irgc run --backend cuda`)."""
    p = program("bfs/bfs_worklist.irg")
    try:
        r = p.run(karate, backend="cuda", params={"source": 0}, verify=True)
    except irgc.CudaError as e:
        assert str(e)
        return
    ref = nx.single_source_shortest_path_length(karate, 0)
    assert [int(x) for x in r["level"]] == [ref[v] for v in karate.nodes]
    assert r.device


@pytest.mark.parametrize(
    "bad, match",
    [
        ([1, 2, 3], "cannot make a graph of a list"),
        (42, "cannot make a graph of a int"),
        ((np.array([0, -1]), np.array([1, 2])), "src: node indices must lie in"),
        ((np.array([0.5, 1.0]), np.array([1, 2])), "src: node indices must be integers"),
        ((np.array([0, 1]), np.array([1])), "2 sources but 1 destinations"),
        ((np.array([0, 1]), np.array([1, 2]), np.array([1.0])), "1 weights for 2 edges"),
        ((np.array([0, 1]), np.array([1, 2]), np.array([1.0, np.nan])), "weight of edge 1 is NaN"),
        ((np.array([0, 1]), np.array([1, 2]), np.array(["a", "b"])), "weights must be numbers"),
        (sp.csr_array(np.ones((2, 3))), "must be square, not 2 x 3"),
        (nx.MultiGraph([(0, 1), (0, 1)]), "multigraphs are not supported"),
    ],
)
def test_garbage_graphs(bad, match):
    with pytest.raises(irgc.GraphError, match=match):
        program("bfs/bfs_worklist.irg").run(bad)


def test_garbage_files(tmp_path):
    with pytest.raises(irgc.GraphError, match="cannot load the graph.*nowhere.mtx"):
        irgc.load(tmp_path / "nowhere.mtx")
    junk = tmp_path / "junk.mtx"
    junk.write_text("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\nbanana\n")
    with pytest.raises(irgc.GraphError, match="junk.mtx"):
        irgc.load(junk)
    with pytest.raises(irgc.GraphError, match="--weights"):
        irgc.load(junk, weights="random:9:1")
    with pytest.raises(irgc.GraphError):
        irgc.generate("rmat:scale=nope")
    with pytest.raises(irgc.GraphError):
        irgc.generate("rmat:scale=60")  # far more memory than any machine has


def test_a_bad_index_raises_with_its_source_line_when_checked():
    src = (
        "graph G;\nnode x: u32 = 0;\noutput x;\n"
        "kernel bad() { forall v in G.nodes { x[((v as u32) + 1000) as node] = 1; } }\n"
        "plan { bad(); }\n"
    )
    p = irgc.compile(src)
    with pytest.raises(irgc.RunError) as e:
        p.run(nx.path_graph(4), check_bounds=True)
    text = str(e.value)
    assert "out-of-bounds access in kernel `bad`: index 1000 into `x`, whose length is 4" in text
    assert ":4:" in text  # the source line of the index
