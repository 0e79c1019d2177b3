"""Installs torch.export's composite-op overrides with plain dictionary writes.

Every retrace in ``ExportedProgram.run_decompositions`` runs inside torch's
``_override_composite_implicit_decomp``: for each preservable CompositeImplicitAutograd op
(several hundred, whether or not the graph uses them) it registers about twenty Python
kernels, one ``OpOverload.py_impl`` call each, and every call builds a closure and evaluates
its typing annotations. ExecuTorch's ``to_edge_transform_and_lower`` decomposes three times
per compile, so on small graphs that bookkeeping is most of the lowering. This context
makes the same registrations (the same kernels under the same keys, the same fake-tensor
rules, undone the same way) directly in the tables ``py_impl`` writes to.
"""

from __future__ import annotations

import contextlib
import functools

import torch
from torch._export.utils import _get_decomp_for_cia
from torch._higher_order_ops.utils import autograd_not_implemented
from torch._subclasses import fake_impls
from torch.export import exported_program

_COMPOSITE = torch._C.DispatchKey.CompositeImplicitAutograd


def _original_under_fake_mode(fake_tensor_mode, op, *args, original_callable, **kwargs):
    # Fake-tensor propagation of a preserved op runs the op's own composite kernel.
    with fake_tensor_mode:
        return original_callable(*args, **kwargs)


def _install(op, decomposition, autograd_keys, backend_keys) -> None:
    kernels = op.py_kernels
    missing_autograd = [key for key in autograd_keys if key not in kernels]
    if missing_autograd:
        not_implemented = autograd_not_implemented(op, deferred_error=True)
        for key in missing_autograd:
            kernels[key] = not_implemented
    # Read before the composite kernel is replaced: the backend keys run the original.
    original = _get_decomp_for_cia(op)
    kernels.pop(_COMPOSITE, None)
    kernels[_COMPOSITE] = decomposition
    if not fake_impls._is_op_registered_to_fake_rule(op):
        fake_impls.register_op_impl(op)(functools.partial(_original_under_fake_mode, original_callable=original))
    for key in backend_keys:
        kernels.setdefault(key, original)
    op._dispatch_cache.clear()


@contextlib.contextmanager
def _override_with_dictionary_writes(cia_ops_to_callable):
    autograd_keys = exported_program._AUTOGRAD_ALIAS_BACKEND_KEYS_TO_OVERRIDE
    backend_keys = exported_program._BACKEND_KEYS_TO_OVERRIDE
    saved = {}
    try:
        for op, decomposition in cia_ops_to_callable.items():
            saved[op] = op.py_kernels.copy()
            _install(op, decomposition, autograd_keys, backend_keys)
        yield
    finally:
        for op, kernels in saved.items():
            op.py_kernels.clear()
            op.py_kernels.update(kernels)
            op._dispatch_cache.clear()
            fake_impls._deregister_op_impl(op)


@contextlib.contextmanager
def lighter_composite_overrides():
    """Within the block, run_decompositions installs its composite-op overrides directly."""
    needed = (
        "_override_composite_implicit_decomp",
        "_AUTOGRAD_ALIAS_BACKEND_KEYS_TO_OVERRIDE",
        "_BACKEND_KEYS_TO_OVERRIDE",
    )
    if not all(hasattr(exported_program, name) for name in needed):  # another torch: keep its own
        yield
        return
    original = exported_program._override_composite_implicit_decomp
    exported_program._override_composite_implicit_decomp = _override_with_dictionary_writes
    try:
        yield
    finally:
        exported_program._override_composite_implicit_decomp = original
