"""Helpers for etarm's own tests: lower a module, run its TOSA on the reference model, compare."""
