"""The compile-time shortcuts (composite_op_scan.py, composite_overrides.py,
lazy_inductor_pass.py, shared_provenance.py, and the partitioner's ops kept by name) change
nothing but time: the same operator sets, the same kernel registrations, the same graphs, the
same .pte bytes as torch's and ExecuTorch's own code."""

import contextlib
import copy
import subprocess
import sys

import torch
from torch._export import utils as export_utils
from torch._subclasses import fake_impls
from torch.export import ExportedProgram, decomp_utils, exported_program
from torch.fx.traceback import NodeSource, NodeSourceAction

from etarm import compiler, composite_overrides, lazy_inductor_pass, shared_provenance
from etarm.composite_op_scan import reuse_composite_op_scan
from etarm.models import load_model
from etarm.testing.cpu_fallback import Fn
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa.partitioner import TOSAPartitioner


def test_reused_composite_op_scan_matches_torch_and_sees_new_operators():
    library = torch.library.Library("etarm_scan_test", "DEF")
    with reuse_composite_op_scan():
        assert exported_program._collect_all_valid_cia_ops is decomp_utils._collect_all_valid_cia_ops
        first = exported_program._collect_all_valid_cia_ops()
        assert first == set(export_utils._collect_all_valid_cia_ops())
        first.clear()  # callers mutate what they get: the cache must not share it
        assert exported_program._collect_all_valid_cia_ops() == set(export_utils._collect_all_valid_cia_ops())

        # A new CompositeImplicitAutograd op changes the registry: the next scan sees it.
        library.define("twice(Tensor x) -> Tensor")
        library.impl("twice", lambda x: x + x, "CompositeImplicitAutograd")
        rescanned = decomp_utils._collect_all_valid_cia_ops()
        assert torch.ops.etarm_scan_test.twice.default in rescanned
        assert rescanned == set(export_utils._collect_all_valid_cia_ops())
    assert exported_program._collect_all_valid_cia_ops is export_utils._collect_all_valid_cia_ops


def test_stand_in_runs_torch_pass_when_the_graph_has_work():
    """An unused get_attr is work for torch's pass (it erases it); a plain graph is not."""
    module = torch.nn.Module()
    module.sub = torch.fx.GraphModule(torch.nn.Module(), torch.fx.Graph())
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    unused = graph.get_attr("sub")
    graph.output(graph.call_function(torch.ops.aten.relu.default, (x,)))
    gm = torch.fx.GraphModule(module, graph)
    assert lazy_inductor_pass._has_work(gm.graph)
    lazy_inductor_pass.decompose_auto_functionalized(gm.graph)
    assert unused not in gm.graph.nodes

    plain = torch.fx.symbolic_trace(torch.nn.ReLU())
    before = [n.format_node() for n in plain.graph.nodes]
    assert not lazy_inductor_pass._has_work(plain.graph)
    lazy_inductor_pass.decompose_auto_functionalized(plain.graph)
    assert [n.format_node() for n in plain.graph.nodes] == before


_COMPILE = """
import hashlib, sys
if sys.argv[1] == "torch_pass":
    import torch.export._remove_auto_functionalized_pass  # bound to torch's pass before etarm
from etarm.compiler import compile_model
from etarm.models import load_model
digests = []
for name, target, quantize in [("mlp", "TOSA-1.0+FP", False), ("cnn_bn", "TOSA-1.0+INT", True)]:
    model, inputs = load_model(name)
    digests.append(hashlib.sha256(compile_model(model, inputs, target, quantize=quantize).pte).hexdigest())
print("inductor pattern matcher imported:", "torch._inductor.pattern_matcher" in sys.modules)
print(" ".join(digests))
"""


def _compile_in_fresh_process(binding: str) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", _COMPILE, binding], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-2:]


def test_stand_in_gives_the_same_pte_without_importing_inductor():
    lazy = _compile_in_fresh_process("stand_in")
    torch_pass = _compile_in_fresh_process("torch_pass")
    assert lazy[0] == "inductor pattern matcher imported: False"
    assert torch_pass[0] == "inductor pattern matcher imported: True"
    assert lazy[1] == torch_pass[1]


def _registrations(ops: list) -> dict:
    composite = torch._C.DispatchKey.CompositeImplicitAutograd
    return {
        op: (frozenset(op.py_kernels), op.py_kernels.get(composite), fake_impls._is_op_registered_to_fake_rule(op))
        for op in ops
    }


def test_lighter_overrides_register_what_torch_registers_and_undo_it():
    aten = torch.ops.aten
    ops = [aten.linear.default, aten.upsample_nearest2d.vec, aten.instance_norm.default]
    table = {op: exported_program._special_op_to_preserve_cia for op in ops}
    before = _registrations(ops)
    with exported_program._override_composite_implicit_decomp(table):
        by_torch = _registrations(ops)
    assert _registrations(ops) == before
    with composite_overrides._override_with_dictionary_writes(table):
        by_etarm = _registrations(ops)
    assert _registrations(ops) == before
    assert by_etarm == by_torch
    assert all(kernel is exported_program._special_op_to_preserve_cia for _, kernel, _ in by_etarm.values())


def _compile_all(compile_model=compiler.compile_model) -> list[bytes]:
    ptes = []
    for name, target, quantize in [("mlp", "TOSA-1.0+FP", False), ("cnn_bn", "ethos-u55-128", True)]:
        model, inputs = load_model(name)
        ptes.append(compile_model(model, inputs, target, quantize=quantize).pte)
    return ptes


def test_lighter_overrides_give_the_same_pte(monkeypatch):
    lighter = _compile_all()
    monkeypatch.setattr(compiler, "lighter_composite_overrides", contextlib.nullcontext)
    assert _compile_all() == lighter


def test_shared_provenance_is_the_same_record_and_gives_the_same_pte():
    graph = torch.fx.Graph()
    node = graph.placeholder("x")
    source = NodeSource(node, "a_pass", NodeSourceAction.CREATE)
    node.meta["from_node"] = [source]
    chained = NodeSource(node, "next_pass", NodeSourceAction.REPLACE)
    assert chained.from_node == [source] and chained.from_node[0] is not source  # torch copies
    with shared_provenance.shared_node_provenance():
        assert copy.deepcopy(source) is source
        assert NodeSource(node, "next_pass", NodeSourceAction.REPLACE).from_node[0] is source
    assert copy.deepcopy(source) is not source and copy.deepcopy(source) == source

    # compile_model shares provenance; its undecorated body copies it as torch does.
    assert _compile_all() == _compile_all(compiler.compile_model.__wrapped__)


def test_ops_kept_by_name_give_the_same_pte_with_fewer_decomposition_passes(monkeypatch):
    passes = []
    decompose = ExportedProgram.run_decompositions
    monkeypatch.setattr(ExportedProgram, "run_decompositions", lambda *a, **k: passes.append(1) or decompose(*a, **k))
    by_name, by_name_passes = _compile_all(), len(passes)
    passes.clear()
    monkeypatch.setattr(TOSAPartitioner, "ops_to_not_decompose", TOSAPartitioner.ops_with_per_node_check)
    assert _compile_all() == by_name
    assert by_name_passes < len(passes)


def _kept_ops_check(module, inputs, additional_checks=None):
    partitioner = TOSAPartitioner(TosaCompileSpec("TOSA-1.0+FP"), additional_checks)
    program = torch.export.export(module, inputs).run_decompositions({})
    return partitioner.ops_to_not_decompose(program)


def test_a_node_that_does_not_lower_whole_keeps_the_per_node_check():
    linear, x = torch.nn.Linear(4, 3), (torch.rand(2, 4),)
    ops, check = _kept_ops_check(linear, x)
    assert torch.ops.aten.linear.default in ops and check is None
    refuse_linear = [lambda node, spec: "refused" if "linear" in str(node.target) else None]
    ops, check = _kept_ops_check(linear, x, refuse_linear)
    assert torch.ops.aten.linear.default in ops and check is not None
    # A program that writes an input back keeps the check too (its write-back copy is partitioned).
    ops, check = _kept_ops_check(Fn(lambda t: t.mul_(2)), (torch.rand(3),))
    assert check is not None
