"""What a test's compile put in its (first) partition, from a LoweredRun or QuantizedRun."""

from __future__ import annotations


def partition(run) -> dict:
    return run.result.report["partitions"][0]


def tosa_ops(run) -> list[str]:
    """The TOSA operators of the partition, in graph order."""
    return partition(run)["tosa_ops"]


def aten_ops(run) -> list[str]:
    """The edge operators the partition holds."""
    return partition(run)["aten_ops"]
