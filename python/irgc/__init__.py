"""irgc from Python: compile a graph program (.irg), run it on a graph, get NumPy arrays back.

    import irgc, networkx as nx
    g = nx.karate_club_graph()
    r = irgc.compile("programs/bfs/bfs_worklist.irg").run(g, params={"source": 0})
    print(r["level"])

Programs run through the same compiler, runtime and verification as ``irgc run`` (the Rust crate
``irgc-driver``). See docs/python.md for the API and how node ids and weights are mapped.
"""

from ._native import (
    CompileError,
    CudaError,
    GraphError,
    IrgcError,
    ParamError,
    RunError,
    VerificationError,
)
from ._graph import Graph, generate, graph, load
from ._program import CompileWarning, Program, Result, compile

__all__ = [
    "compile",
    "graph",
    "load",
    "generate",
    "Program",
    "Result",
    "Graph",
    "IrgcError",
    "CompileError",
    "CompileWarning",
    "GraphError",
    "RunError",
    "ParamError",
    "VerificationError",
    "CudaError",
]
