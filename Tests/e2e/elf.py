"""What an ELF file asks of the dynamic loader, read from its program headers: the interpreter
(PT_INTERP) and the libraries of its dynamic section (DT_NEEDED). A fully static executable
has neither. Read with `struct` rather than by running ldd, whose answer depends on the
loader of the machine and which runs code of the file it inspects."""

import struct
from dataclasses import dataclass
from pathlib import Path

PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NULL, DT_NEEDED, DT_STRTAB = 0, 1, 5


@dataclass
class LinkInfo:
    interpreter: str | None
    needed: list[str]

    @property
    def is_static(self) -> bool:
        return self.interpreter is None and not self.needed


@dataclass
class Segment:
    kind: int
    offset: int
    address: int
    file_size: int


def read_link_info(path: Path) -> LinkInfo:
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF":
        raise ValueError(f"{path} is not an ELF file")
    wide = {1: False, 2: True}[data[4]]  # EI_CLASS: ELFCLASS32, ELFCLASS64
    order = {1: "<", 2: ">"}[data[5]]  # EI_DATA: little, big endian
    segments = _segments(data, wide, order)
    interpreter = None
    for segment in segments:
        if segment.kind == PT_INTERP:
            interpreter = data[segment.offset:segment.offset + segment.file_size].rstrip(b"\0").decode()
    needed = []
    dynamic = next((s for s in segments if s.kind == PT_DYNAMIC), None)
    if dynamic is not None:
        entries = _dynamic_entries(data, dynamic, wide, order)
        strtab = next((value for tag, value in entries if tag == DT_STRTAB), None)
        for tag, value in entries:
            if tag == DT_NEEDED:
                needed.append(_string(data, segments, strtab, value) if strtab is not None else f"#{value}")
    return LinkInfo(interpreter, needed)


def _segments(data: bytes, wide: bool, order: str) -> list[Segment]:
    if wide:
        phoff, = struct.unpack_from(order + "Q", data, 0x20)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 0x36)
    else:
        phoff, = struct.unpack_from(order + "I", data, 0x1C)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 0x2A)
    segments = []
    for index in range(phnum):
        at = phoff + index * phentsize
        if wide:
            kind, _flags, offset, address, _paddr, file_size = struct.unpack_from(order + "IIQQQQ", data, at)
        else:
            kind, offset, address, _paddr, file_size = struct.unpack_from(order + "IIIII", data, at)
        segments.append(Segment(kind, offset, address, file_size))
    return segments


def _dynamic_entries(data: bytes, dynamic: Segment, wide: bool, order: str) -> list[tuple[int, int]]:
    entry = struct.Struct(order + ("qQ" if wide else "iI"))
    entries = []
    for at in range(dynamic.offset, dynamic.offset + dynamic.file_size, entry.size):
        tag, value = entry.unpack_from(data, at)
        if tag == DT_NULL:
            break
        entries.append((tag, value))
    return entries


def _string(data: bytes, segments: list[Segment], strtab_address: int, index: int) -> str:
    """A string of the dynamic string table, whose place is given as a loaded address."""
    for segment in segments:
        if segment.kind == PT_LOAD and segment.address <= strtab_address < segment.address + segment.file_size:
            start = segment.offset + strtab_address - segment.address + index
            return data[start:data.index(b"\0", start)].decode()
    return f"#{index}"
