"""Scans torch's operator registry for CompositeImplicitAutograd ops once per compile.

``ExportedProgram.run_decompositions`` splits its table into composite (CIA) ops and the
rest by listing every preservable CIA op of every operator namespace, and for each of the
~40 namespaces it first walks the C++ dispatcher's whole CIA registration list again.
ExecuTorch's ``to_edge_transform_and_lower`` runs that scan five times per compile (three
decompositions, two table materializations): about 40% of an add compile. The answer only
changes when operators are registered, so while the namespaces and the C++ CIA registrations
stay the same the last scan's answer is reused, and a scan walks the C++ list once.
"""

from __future__ import annotations

import contextlib

import torch


def _registry_fingerprint() -> tuple:
    cia = torch._C._dispatch_get_registrations_for_dispatch_key("CompositeImplicitAutograd")
    return tuple(torch.ops._dir), len(cia)


@contextlib.contextmanager
def reuse_composite_op_scan():
    """Within the block, torch.export reuses its CIA op scan while the registry is unchanged."""
    from torch._export import utils as export_utils
    from torch.export import decomp_utils, exported_program

    # Both modules bound the scan function by name at import: patch each binding.
    users = [m for m in (exported_program, decomp_utils) if hasattr(m, "_collect_all_valid_cia_ops")]
    materialize = getattr(export_utils, "_materialize_cpp_cia_ops", None)
    if not users or materialize is None:  # a torch without these helpers: nothing to speed up
        yield
        return
    scan = users[0]._collect_all_valid_cia_ops
    cached: dict[tuple, frozenset] = {}

    def materialize_once_per_scan(done: list) -> None:
        # Materializing only creates torch.ops attributes from the C++ list, which cannot
        # change during one scan.
        if not done:
            materialize()
            done.append(True)

    def scan_once() -> set:
        key = _registry_fingerprint()
        if key not in cached:
            done: list = []
            export_utils._materialize_cpp_cia_ops = lambda: materialize_once_per_scan(done)
            try:
                ops = frozenset(scan())
            finally:
                export_utils._materialize_cpp_cia_ops = materialize
            cached.clear()
            cached[key] = ops
        return set(cached[key])  # callers remove entries from the set they get

    saved = [(m, m._collect_all_valid_cia_ops) for m in users]
    for module, _ in saved:
        module._collect_all_valid_cia_ops = scan_once
    try:
        yield
    finally:
        for module, original in saved:
            module._collect_all_valid_cia_ops = original
