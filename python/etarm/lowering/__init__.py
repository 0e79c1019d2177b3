"""Building blocks the node visitors share (helpers for the op_*.py visitors), and the visitor registry."""
