"""ToDevicePass(device): a graph's placeholders, constants and device kwargs move to ``device``."""

import torch

from etarm.passes.to_device import ToDevicePass
from etarm.testing.edge_programs import TableFn, calls, edge_program


def test_to_device_moves_placeholders_constants_and_device_kwargs():
    module = TableFn(lambda m, x: m.table(torch.arange(3)) * x)
    program = edge_program(module, (torch.randn(3, 3),), [ToDevicePass("meta")])
    meta = torch.device("meta")
    for node in program.graph.nodes:
        if node.op in ("placeholder", "call_function"):
            assert node.meta["val"].device == meta, node.name
        if "device" in node.kwargs:
            assert node.kwargs["device"] == meta
    assert calls(program, "aten.arange.start_step")
    assert all(t.device == meta for t in program.state_dict.values())


def test_to_device_on_a_graph_module_and_back():
    module = TableFn(lambda m, x: m.table(torch.arange(3)) * x)
    program = torch.export.export(module, (torch.randn(3, 3),), strict=False)
    assert not ToDevicePass("cpu")(program.graph_module).modified  # already there
    result = ToDevicePass(torch.device("meta"))(program.graph_module)
    assert result.modified
    (arange,) = [n for n in result.graph_module.graph.nodes if n.op == "call_function" and "arange" in str(n.target)]
    assert arange.kwargs["device"] == torch.device("meta") and arange.meta["val"].device == torch.device("meta")
