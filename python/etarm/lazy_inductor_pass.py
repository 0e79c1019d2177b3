"""Keeps torch's inductor pattern matcher out of start-up until a graph needs it.

ExecuTorch imports ``torch.export._remove_auto_functionalized_pass`` (run by every
``to_executorch``), which imports ``decompose_auto_functionalized`` from inductor's
post-grad passes: that pulls in inductor's pattern matcher, lowerings and kernel
templates, ~0.6 s of CPU on every compile. The pass only has work in graphs holding
higher-order ops (auto_functionalized, control_deps) or unused get_attr nodes; etarm's
programs have neither, so there it is a no-op. ``install()``, called before ExecuTorch is
imported, binds a stand-in that returns at once for such graphs and otherwise imports and
runs torch's own pass.
"""

from __future__ import annotations

import importlib
import sys
import types

import torch

_POST_GRAD = "torch._inductor.fx_passes.post_grad"
_REMOVE_AUTO_FUNCTIONALIZED = "torch.export._remove_auto_functionalized_pass"


# Higher-order ops the pass provably leaves alone: a delegate call is not auto_functionalized
# and has no control_deps subgraph. Any other one (cond, while_loop, ...) runs torch's pass.
_UNTOUCHED_HIGHER_ORDER_OPS = frozenset({"executorch_call_delegate"})


def _has_work(graph: torch.fx.Graph) -> bool:
    """True unless torch's decompose_auto_functionalized provably leaves ``graph`` as it is:
    it rewrites auto_functionalized calls (and control_deps subgraphs) and erases unused
    get_attr nodes."""
    for node in graph.nodes:
        if (
            node.op == "call_function"
            and isinstance(node.target, torch._ops.HigherOrderOperator)
            and node.target.name() not in _UNTOUCHED_HIGHER_ORDER_OPS
        ):
            return True
        if node.op == "get_attr" and not node.users:
            return True
    return False


def decompose_auto_functionalized(graph: torch.fx.Graph) -> None:
    if not _has_work(graph):
        return
    from torch._inductor.fx_passes.post_grad import decompose_auto_functionalized as torch_pass

    torch_pass(graph)


def install() -> None:
    """Imports the auto_functionalized removal pass bound to the stand-in (once, before ExecuTorch)."""
    if _REMOVE_AUTO_FUNCTIONALIZED in sys.modules or _POST_GRAD in sys.modules:
        return  # already imported with torch's own binding: nothing to save
    stand_in = types.ModuleType(_POST_GRAD)
    stand_in.decompose_auto_functionalized = decompose_auto_functionalized
    sys.modules[_POST_GRAD] = stand_in
    try:
        importlib.import_module(_REMOVE_AUTO_FUNCTIONALIZED)
    except ImportError:
        # A torch whose pass needs more of post_grad: import it unchanged later.
        sys.modules.pop(_REMOVE_AUTO_FUNCTIONALIZED, None)
    finally:
        # Whoever imports post_grad later gets torch's real module.
        if sys.modules.get(_POST_GRAD) is stand_in:
            del sys.modules[_POST_GRAD]
