"""ToDevicePass(device): moves a graph's placeholders, constants and device kwargs to ``device``.

Placeholder fake values, ``device=`` kwargs of creation ops, the program's parameters,
buffers and constants (when run on an ExportedProgram) and the graph module's own tensors
all move; every node's meta["val"] is recomputed so the graph stays consistent.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

from etarm.passes.base import ProgramPass
from etarm.passes.fake_values import compute_value, fake_mode_of, same_types


def _moved(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    if isinstance(tensor, torch.nn.Parameter):
        return torch.nn.Parameter(tensor.detach().to(device), requires_grad=tensor.requires_grad)
    return tensor.to(device)


class ToDevicePass(ProgramPass):
    def __init__(self, device):
        super().__init__()
        self.device = torch.device(device)

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        modified = False
        fake_mode = fake_mode_of(graph_module.graph)
        for node in graph_module.graph.nodes:
            old = node.meta.get("val")
            if node.op == "placeholder" and isinstance(old, torch.Tensor):
                with fake_mode:
                    node.meta["val"] = old.to(self.device)
            elif node.op == "call_function":
                if node.kwargs.get("device") not in (None, self.device):
                    node.kwargs = {**node.kwargs, "device": self.device}
                    modified = True
                try:
                    node.meta["val"] = compute_value(node, fake_mode)
                except Exception:  # noqa: BLE001 - an op that cannot be re-run keeps its old value
                    pass
            modified |= not same_types(old, node.meta.get("val"))
        if program is not None:
            for store in (program.state_dict, program.constants):
                for name, tensor in list(store.items()):
                    if isinstance(tensor, torch.Tensor) and tensor.device != self.device:
                        store[name] = _moved(tensor, self.device)
                        modified = True
        for owner in list(graph_module.modules()):
            for name, tensor in list(owner.named_parameters(recurse=False)) + list(owner.named_buffers(recurse=False)):
                if tensor.device != self.device:
                    setattr(owner, name, _moved(tensor, self.device))
                    modified = True
        return modified
