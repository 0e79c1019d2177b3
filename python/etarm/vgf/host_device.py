"""The VGF target's device on the host: the VGF delegate (runtime/vgf) on a Vulkan device with
VK_ARM_tensors and VK_ARM_data_graph, by default lavapipe (Mesa's CPU driver) through the ML
SDK's emulation layers, which the ai-ml-emulation-layer-for-vulkan package carries.

The delegate is a library of its own beside etarm.runtime's extension (_vgf_delegate.so), so
that programs of other targets never need the Vulkan loader; installing this device loads it
once, after pointing the Vulkan loader at the layers. The delegate reads that set-up when its
first program is loaded (docs/vgf_runtime.md), so a user's own VK_* settings win.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import pathlib
import tempfile

import emulation_layer

from etarm.errors import EtarmError

DELEGATE_LIBRARY = "_vgf_delegate.so"
LAVAPIPE_ICD = pathlib.Path("/usr/share/vulkan/icd.d/lvp_icd.json")
# The emulation layers' manifests inside the package, and what each names as its library.
_MANIFESTS = ("VkLayer_Graph.json", "VkLayer_Tensor.json")


def emulation_layer_directory(package_folders, cache: pathlib.Path) -> pathlib.Path:
    """A folder of the emulation layers' manifests naming their libraries by absolute path.

    The package's own manifests name the library bare (found only on the loader's search
    path), so they are rewritten into ``cache``, keyed by the package's location."""
    deploy = next((pathlib.Path(f) / "deploy" for f in package_folders if (pathlib.Path(f) / "deploy").is_dir()), None)
    if deploy is None:
        raise EtarmError(
            f"the ML emulation layers are missing from the emulation_layer package ({list(package_folders)})"
        )
    manifests = deploy / "share" / "vulkan" / "explicit_layer.d"
    folder = cache / hashlib.sha256(str(deploy.resolve()).encode()).hexdigest()[:16]
    folder.mkdir(parents=True, exist_ok=True)
    for name in _MANIFESTS:
        manifest = json.loads((manifests / name).read_text())
        library = deploy / "lib" / pathlib.Path(manifest["layer"]["library_path"]).name
        manifest["layer"]["library_path"] = str(library.resolve())
        written = folder / name
        text = json.dumps(manifest, indent=1)
        if not written.exists() or written.read_text() != text:
            written.write_text(text)
    return folder


def prepare_vulkan_environment(environ, layer_folder: pathlib.Path) -> None:
    """Adds the emulation layers to the loader's layer path and, when the user chose no Vulkan
    driver, picks lavapipe if it is installed."""
    paths = [p for p in environ.get("VK_LAYER_PATH", "").split(os.pathsep) if p]
    if str(layer_folder) not in paths:
        environ["VK_LAYER_PATH"] = os.pathsep.join([*paths, str(layer_folder)])
    chosen = environ.get("VK_DRIVER_FILES") or environ.get("VK_ICD_FILENAMES")
    if not chosen and LAVAPIPE_ICD.exists():
        environ["VK_DRIVER_FILES"] = str(LAVAPIPE_ICD)


def _layer_cache() -> pathlib.Path:
    """Where the rewritten manifests go: the user's cache, or the temporary folder where that
    is not writable (sandboxes)."""
    cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "etarm" / "vulkan_layers"
    try:
        cache.mkdir(parents=True, exist_ok=True)
        return cache
    except OSError:
        return pathlib.Path(tempfile.gettempdir()) / "etarm_vulkan_layers"


class VgfHostDevice:
    _loaded: ctypes.CDLL | None = None

    def install(self, extension, backend_id: str, compile_specs: list) -> None:
        """Loads the VGF delegate, which registers itself as VgfBackend with the runtime the
        extension runs programs on."""
        if VgfHostDevice._loaded is not None:
            return
        prepare_vulkan_environment(os.environ, emulation_layer_directory(emulation_layer.__path__, _layer_cache()))
        library = pathlib.Path(extension.__file__).with_name(DELEGATE_LIBRARY)
        try:
            VgfHostDevice._loaded = ctypes.CDLL(str(library))
        except OSError as exc:
            raise EtarmError(f"cannot load the VGF delegate {library.name} ({exc})") from exc
