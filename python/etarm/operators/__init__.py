"""ATen -> TOSA node visitors, one operator per module (``op_<name>.py``).

Importing this package registers every visitor.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    if _module.name.startswith("op_"):
        importlib.import_module(f"{__name__}.{_module.name}")
