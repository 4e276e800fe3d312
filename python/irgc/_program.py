"""Compiled programs and their results: params go in as the caller's values (node params as the graph's node
ids), outputs come out as NumPy arrays keyed by name (node-valued ones as node ids), with the run's statistics."""

import json
import os
import warnings
from collections.abc import Mapping

import numpy as np

from . import _native
from ._graph import graph as _as_graph
from ._native import ParamError


class CompileWarning(UserWarning):
    """The front end's warnings for a program that compiled; the message is the rendered diagnostics."""


def compile(program, *, disable_passes=(), pass_params=None):
    """Compiles a program: a path to a ``.irg`` file, or the program's source text (any string holding a
    newline or ``{``). Raises ``CompileError`` with the rendered diagnostics (as ``irgc check`` prints them);
    warnings are issued as ``CompileWarning``. ``disable_passes`` names optimizer passes not to run;
    ``pass_params`` sets passes' parameters, ``{"interleave.factor": 8}`` (``irgc passes`` lists them)."""
    disable = list(disable_passes)
    params = [f"{k}={v}" for k, v in (pass_params or {}).items()]
    if isinstance(program, os.PathLike) or (isinstance(program, str) and "\n" not in program and "{" not in program):
        native = _native.Program.compile_file(os.fspath(program), disable, params)
    elif isinstance(program, str):
        native = _native.Program.compile_source("<source>", program, disable, params)
    else:
        raise TypeError(f"compile() takes a path or the program's text, not a {type(program).__name__}")
    if native.warnings:
        warnings.warn(native.warnings, CompileWarning, stacklevel=2)
    return Program(native)


class Program:
    """A compiled program. ``run`` it on any number of graphs, from any thread (the GIL is released)."""

    def __init__(self, native):
        self._native = native
        self._param_types = {name: ty for name, ty, _ in native.params}

    @property
    def name(self):
        return self._native.name

    @property
    def params(self):
        """``{name: (type, default as text or None)}`` for every param, in declaration order."""
        return {name: (ty, default) for name, ty, default in self._native.params}

    @property
    def outputs(self):
        """``{name: type}`` for every output, in declaration order."""
        return dict(self._native.outputs)

    def run(self, graph, backend="cpu", params=None, verify=False, threads=None, *, weight="weight",
            max_launches=None, arch=None, check_bounds=None, devices=1, gpus=None, partition="edges", stats=True):
        """Runs the program on ``graph`` (anything ``irgc.graph`` takes; ``weight`` is passed to it).

        ``backend``: "cpu" (Cranelift, ``threads`` worker threads, default one per core) or "cuda" (GPU 0;
        ``arch`` e.g. "sm_80"). ``params``: ``{name: value}``; a node param is given as the graph's node id.
        ``verify=True`` checks every output declared ``as`` a check against the runtime's independent reference
        and raises ``VerificationError`` on a wrong answer. ``check_bounds`` (default: on for the CPU, as ``verify``
        for the GPU) checks every array and graph index in the kernels and raises ``RunError`` naming the kernel, array, index and
        bound at the first bad one. ``devices=N`` splits the edges into N parts, runs the program on each and
        merges the results with its ``merge`` block (CPU devices one after another; with "cuda", GPUs 0..N-1 at
        once, or the ordinals ``gpus`` lists, e.g. ``gpus=[0, 1]``; a GPU listed twice holds two devices).
        ``partition`` says where the edges are cut: "edges" (equal edge counts, the default) or "lower-edges"
        (equal counts of the edges that lead to a smaller node: the ones union-find CC programs hook).
        ``stats=True`` (the default) keeps ``Result.stats``, the per-launch and per-round records, as ``irgc run
        --stats`` does: on the GPU each launch is then waited for and timed, and ``while`` loops run launch by
        launch. ``stats=False`` runs as ``irgc run`` does, as fast as it can (loops in one GPU kernel where that
        is faster): ``Result.stats`` then holds only what every run keeps (``printed``, ``outlined``, the loop and
        unroll choices). Returns a ``Result``.
        """
        g = _as_graph(graph, weight=weight)
        given = [(name, self._param_text(g, name, value)) for name, value in (params or {}).items()]
        options = {}
        if max_launches is not None:
            options["max_launches"] = int(max_launches)
        if check_bounds is not None:
            options["check_bounds"] = bool(check_bounds)
        if gpus is not None:
            options["gpus"] = [int(x) for x in gpus]
        raw = self._native.run(g._native, backend, given, bool(verify), threads, arch=arch, devices=int(devices),
                               partition=partition, stats=bool(stats), **options)
        return Result(raw, g)

    def _param_text(self, g, name, value):
        """A param value as ``--param`` text: node ids become ``#index`` of the node in ``g``."""
        ty = self._param_types.get(name)
        if ty == "node" and not (isinstance(value, str) and value.startswith("#")):
            try:
                return f"#{g.index_of(value)}"
            except (KeyError, TypeError):
                raise ParamError(f"param `{name}`: the graph has no node {value!r}") from None
        if isinstance(value, (bool, np.bool_)):
            return "true" if value else "false"
        if isinstance(value, (int, np.integer)):
            return str(int(value))
        if isinstance(value, (float, np.floating)):
            return repr(float(value))
        return str(value)

    def __repr__(self):
        return f"<irgc.Program {self.name}>"


class Result(Mapping):
    """A run's outputs, as NumPy arrays by name (``result["level"]``), and its statistics.

    Node outputs are indexed like ``nodes`` (the graph's node ids, by index). A node-valued output (a mate, a
    parent) holds node ids: -1 (integer ids) or None (other ids) where it holds no node. Other outputs keep
    their type, and "no value" (unreached, unmatched) is the type's largest value (``inf`` for floats);
    ``absent(name)`` is the mask of those elements.
    """

    def __init__(self, raw, graph):
        self._arrays = {}
        self._absent = {}
        self._kinds = {}
        for o in raw["outputs"]:
            shape = tuple(o["shape"])
            a = np.frombuffer(o["data"], dtype=o["dtype"]).reshape(shape).copy()
            absent = np.frombuffer(o["absent"], dtype=np.uint8).reshape(shape).astype(bool)
            if o["type"] == "node":
                a = graph.ids_of(a, absent)
            self._arrays[o["name"]] = a
            self._absent[o["name"]] = absent
            self._kinds[o["name"]] = (o["kind"], o["type"], o["absent_word"])
        self.graph = graph
        #: The node ids node outputs are indexed by.
        self.nodes = graph.nodes
        self.backend = raw["backend"]
        #: Allocating and initialising memory (on a GPU: with the upload), and running the plan, in seconds.
        self.setup_seconds = raw["setup_seconds"]
        #: The set-up split into its parts (device, graph, renumbering, weights, sources, arrays, worklists), in seconds.
        self.setup_parts_seconds = raw["setup_parts_seconds"]
        self.compute_seconds = raw["compute_seconds"]
        #: Kernel launches, retries included.
        self.launches = raw["launches"]
        #: The outputs' digest, as ``irgc run`` prints it.
        self.digest = raw["digest"]
        self.threads = raw.get("threads")
        self.device = raw.get("device")
        self.arch = raw.get("arch")
        #: On several devices: ``{"parts": [{"edges", "setup_seconds", "compute_seconds", "launches"}, ...],
        #: "merge_rounds", "merge_seconds", "merge_launches", "at_once"}``; None on one.
        self.devices = raw["devices"]
        #: With verify=True, one ``{"output", "reference", "summary"}`` per check (all passed); else None.
        self.verification = raw["verification"]
        #: Per-launch and per-round records, as ``irgc run --json --stats`` reports them.
        self.stats = json.loads(raw["stats_json"])
        #: What the plan's ``print`` recorded: ``{"label", "type", "text", "value", "round"}`` each.
        self.printed = self.stats.get("printed", [])
        #: How the graph was changed to fit the program (symmetrized for ``graph G(undirected)``, default
        #: weights), one sentence each; empty when it fit as given.
        self.adjusted = list(raw["adjusted"])

    def __getitem__(self, name):
        return self._arrays[name]

    def __iter__(self):
        return iter(self._arrays)

    def __len__(self):
        return len(self._arrays)

    def absent(self, name):
        """The mask of elements of output ``name`` that hold no value (unreached, unmatched, ``inf``)."""
        return self._absent[name]

    def kind(self, name):
        """``(indexed by, type, word for no value)`` of output ``name``: e.g. ``("node", "u32", "unreached")``;
        indexed by "node", "edge" (the order of ``Graph.csr()``) or "dense"."""
        return self._kinds[name]

    def __repr__(self):
        outs = ", ".join(f"{k}: {self._kinds[k][1]}[{v.shape[0] if v.ndim else ''}]" for k, v in self._arrays.items())
        return f"<irgc.Result {outs}; {self.compute_seconds * 1e3:.3f} ms compute, {self.launches} launches>"
