#!/usr/bin/env python3
"""Write a RAM-only RP2040 UF2 file of an ELF image, for the Pico's BOOTSEL USB drive.

Usage: python3 tools/elf2uf2.py image.elf image.uf2

UF2 (https://github.com/microsoft/uf2): 512-byte blocks, each carrying 256 bytes for one
target address. The RP2040 boot ROM (RP2040 datasheet section 2.8.4.2) wants the family ID
0xe48bff56 in every block, 256-byte payloads, and for a RAM-only image addresses within main
SRAM 0x20000000-0x20042000; once every block has arrived it enters the image at its lowest
address. So that address must be the ELF's entry point, which this script checks.
"""
import struct
import sys

UF2_MAGIC_START0 = 0x0A324655
UF2_MAGIC_START1 = 0x9E5D5157
UF2_MAGIC_END = 0x0AB16F30
UF2_FLAG_FAMILY_ID_PRESENT = 0x00002000
RP2040_FAMILY_ID = 0xE48BFF56
PAYLOAD = 256
RAM_START, RAM_END = 0x20000000, 0x20042000
PT_LOAD = 1


def load_segments(elf):
    """The bytes of every loadable segment with file contents, at its physical address."""
    if elf[:4] != b"\x7fELF" or elf[4] != 1 or elf[5] != 1:
        raise ValueError("not a 32-bit little-endian ELF file")
    entry, phoff = struct.unpack_from("<II", elf, 24)
    phentsize, phnum = struct.unpack_from("<HH", elf, 42)
    segments = []
    for i in range(phnum):
        p_type, p_offset, _vaddr, p_paddr, p_filesz = struct.unpack_from(
            "<IIIII", elf, phoff + i * phentsize)
        if p_type == PT_LOAD and p_filesz > 0:
            segments.append((p_paddr, elf[p_offset:p_offset + p_filesz]))
    return entry, segments


def pages(segments):
    """256-byte pages keyed by address, zero-filled where a segment does not cover them."""
    memory = {}
    for address, data in segments:
        if address < RAM_START or address + len(data) > RAM_END:
            raise ValueError(f"segment at 0x{address:08x} (+{len(data)}) is outside main SRAM; "
                             "a RAM-only UF2 cannot hold it")
        for offset, byte in enumerate(data):
            memory[address + offset] = byte
    result = {}
    for address in sorted(memory):
        base = address - (address - RAM_START) % PAYLOAD
        page = result.setdefault(base, bytearray(PAYLOAD))
        page[address - base] = memory[address]
    return result


def uf2_blocks(page_map):
    total = len(page_map)
    for number, address in enumerate(sorted(page_map)):
        header = struct.pack("<8I", UF2_MAGIC_START0, UF2_MAGIC_START1, UF2_FLAG_FAMILY_ID_PRESENT,
                             address, PAYLOAD, number, total, RP2040_FAMILY_ID)
        data = bytes(page_map[address]).ljust(476, b"\0")
        yield header + data + struct.pack("<I", UF2_MAGIC_END)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[1], "rb") as f:
        entry, segments = load_segments(f.read())
    if not segments:
        print(f"elf2uf2: {argv[1]} has nothing to load", file=sys.stderr)
        return 1
    try:
        page_map = pages(segments)
    except ValueError as error:
        print(f"elf2uf2: {argv[1]}: {error}", file=sys.stderr)
        return 1
    lowest = min(address for address, _ in segments)
    if entry & ~1 != lowest:
        print(f"elf2uf2: {argv[1]}: entry 0x{entry:08x} is not the lowest loaded address "
              f"0x{lowest:08x}; the boot ROM would start the image there", file=sys.stderr)
        return 1
    with open(argv[2], "wb") as f:
        for block in uf2_blocks(page_map):
            f.write(block)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
