"""What every target's PT2E quantizer shares: the annotation rules per op kind
(``annotate_*.py``), the configs, the AnnotatingQuantizer base and the calibration flow.
Users import the quantizers from etarm.quantizer."""
