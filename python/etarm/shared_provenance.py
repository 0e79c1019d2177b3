"""Shares fx provenance records instead of deep-copying them.

Every node a pass creates records where it came from (``node.meta["from_node"]``, a list of
torch.fx.traceback.NodeSource, each holding the chain of its own sources), and torch deep-copies
the whole chain into each new record. The chain grows by one level per retrace, so across the
dozens of retraces of a compile the copying grows with passes x nodes x depth. A NodeSource is
never changed after it is built (equality and hashing compare its contents), so while the block
runs a deep copy of one is the record itself.
"""

from __future__ import annotations

import contextlib

from torch.fx.traceback import NodeSource


def _shared(source: NodeSource, memo: dict) -> NodeSource:
    return source


@contextlib.contextmanager
def shared_node_provenance():
    """Within the block, copy.deepcopy of a NodeSource returns it unchanged."""
    saved = NodeSource.__dict__.get("__deepcopy__")
    NodeSource.__deepcopy__ = _shared
    try:
        yield
    finally:
        if saved is None:
            del NodeSource.__deepcopy__
        else:
            NodeSource.__deepcopy__ = saved
