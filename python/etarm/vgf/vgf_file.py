"""Reads a .vgf file with the VGF library's decoder (vgfpy): its graph inputs and outputs, its
segments, and whether they match the partition the file was converted from."""

from __future__ import annotations

import dataclasses

import vgfpy

from etarm.errors import EtarmError

MAGIC = b"VGF1"

# Vulkan formats (vulkan_core.h) of VGF tensors, by the element type they hold.
_VK_FORMATS = {
    9: "uint8",  # VK_FORMAT_R8_UNORM
    13: "uint8",  # VK_FORMAT_R8_UINT
    14: "int8",  # VK_FORMAT_R8_SINT
    74: "uint16",  # VK_FORMAT_R16_UINT
    75: "int16",  # VK_FORMAT_R16_SINT
    76: "float16",  # VK_FORMAT_R16_SFLOAT
    98: "uint32",  # VK_FORMAT_R32_UINT
    99: "int32",  # VK_FORMAT_R32_SINT
    100: "float32",  # VK_FORMAT_R32_SFLOAT
    111: "int64",  # VK_FORMAT_R64_SINT
    1000460000: "bool",  # VK_FORMAT_R8_BOOL_ARM
}
# What a partition's tensor of each dtype is in TOSA, so in the VGF: TOSA 1.0 has no int64.
_TOSA_ELEMENT = {"int64": "int32"}


@dataclasses.dataclass(frozen=True)
class VgfTensor:
    name: str
    dtype: str
    shape: tuple[int, ...]

    def describe(self) -> str:
        return f"{self.dtype} {list(self.shape)}"


@dataclasses.dataclass(frozen=True)
class VgfContents:
    version: str
    inputs: tuple[VgfTensor, ...]
    outputs: tuple[VgfTensor, ...]
    # One entry per segment: {"name", "type" ("graph" or "compute"), "module"}.
    segments: tuple[dict, ...]
    constants: int


def _tensors(sequence, resources, slots, names) -> tuple[VgfTensor, ...]:
    tensors = []
    for i in range(sequence.getBindingsSize(slots)):
        index = sequence.getBindingSlotMrtIndex(slots, i)
        shape = resources.getTensorShape(index)
        vk_format = resources.getVkFormat(index)
        tensors.append(
            VgfTensor(
                name=sequence.getName(names, i) if i < sequence.getNamesSize(names) else f"#{i}",
                dtype=_VK_FORMATS.get(vk_format, f"VkFormat {vk_format}"),
                shape=tuple(int(d) for d in shape) if shape is not None else (),
            )
        )
    return tuple(tensors)


def read_vgf(data: bytes) -> VgfContents:
    if data[:4] != MAGIC:
        raise EtarmError(f"not a VGF file: it starts with {data[:4]!r}, not {MAGIC!r}")
    # The decoders give None for data they cannot read; the header's checks cover the section bounds.
    header = vgfpy.CreateHeaderDecoder(data, vgfpy.HeaderSize(), len(data))
    if header is None or not header.IsValid() or not header.CheckVersion():
        raise EtarmError("the VGF file's header is invalid or of a version the VGF library does not read")
    size = header.GetModelResourceTableSize()
    resources = vgfpy.CreateModelResourceTableDecoder(data[header.GetModelResourceTableOffset() :][:size], size)
    size = header.GetModelSequenceTableSize()
    sequence = vgfpy.CreateModelSequenceTableDecoder(data[header.GetModelSequenceTableOffset() :][:size], size)
    if resources is None or sequence is None:
        raise EtarmError("the VGF file's resource or sequence table is corrupt")
    segments = tuple(
        {
            "name": sequence.getSegmentName(i),
            "type": sequence.getSegmentType(i).name.lower(),
            "module": sequence.getSegmentModuleIndex(i),
        }
        for i in range(sequence.modelSequenceTableSize())
    )
    constants = sum(resources.getCategory(i) == vgfpy.ResourceCategory.Constant for i in range(resources.size()))
    return VgfContents(
        version=f"{header.GetMajor()}.{header.GetMinor()}.{header.GetPatch()}",
        inputs=_tensors(
            sequence,
            resources,
            sequence.getModelSequenceInputBindingSlotsHandle(),
            sequence.getModelSequenceInputNamesHandle(),
        ),
        outputs=_tensors(
            sequence,
            resources,
            sequence.getModelSequenceOutputBindingSlotsHandle(),
            sequence.getModelSequenceOutputNamesHandle(),
        ),
        segments=segments,
        constants=constants,
    )


def _expected(entry: dict) -> tuple[str, tuple[int, ...]]:
    """The VGF tensor of a partition input or output: a rank-0 one has shape [1] (a Vulkan
    tensor has at least one dimension: RankZeroAsShapeOne, vgf/passes/)."""
    return _TOSA_ELEMENT.get(entry["dtype"], entry["dtype"]), tuple(entry["shape"]) or (1,)


def io_mismatches(contents: VgfContents, inputs: list[dict], outputs: list[dict]) -> list[str]:
    """How the VGF's graph inputs and outputs differ from the partition's (its report entries)."""
    problems = []
    for kind, got, wanted in (("inputs", contents.inputs, inputs), ("outputs", contents.outputs, outputs)):
        if len(got) != len(wanted):
            problems.append(f"{len(got)} {kind} in the VGF, {len(wanted)} in the partition")
            continue
        for index, (tensor, entry) in enumerate(zip(got, wanted)):
            if (tensor.dtype, tensor.shape) != _expected(entry):
                problems.append(
                    f"{kind[:-1]} {index} ('{entry['name']}') is {entry['dtype']} {list(entry['shape'])} in the "
                    f"partition but {tensor.describe()} in the VGF"
                )
    return problems
