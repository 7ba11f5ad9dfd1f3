#!/usr/bin/python3
"""Code size of a bare-metal image per part, from the GNU ld map file (-Wl,-Map).

    size_report.py CPU_IMAGE.map [MMIO_IMAGE.map]
    size_report.py --functions N CPU_IMAGE.map

Sums the input sections that the link kept (--gc-sections already dropped the rest) by the
library they came from: the runtime's parts (libloom_bm_*.a, one per runtime folder), the
platform, the image's main, the embedded package and input, and the toolchain's libraries.
Prints a Markdown table of text (code), rodata and data+bss bytes per part, for docs/firmware.md.
With a second map (the same image on the mmio device), adds its column for the protocol driver.
With --functions N, lists instead the N largest functions of the core without kernels (each
function is its own input section under -ffunction-sections), where the next bytes would come from.
"""
import re
import subprocess
import sys

PART_NAMES = {
    "core": "runtime core: status, HwConfig, ISA (runtime/core)",
    "package": "loader + checks (runtime/package)",
    "exec": "executor (runtime/exec)",
    "drivers": "driver registry, cpu device (runtime/drivers)",
    "protocol": "register protocol + mmio transports (runtime/drivers/protocol, mmio)",
    "io": ".npy parser (runtime/io)",
    "native": "native-code loader: ELF, relocations (runtime/native)",
    "kernels": "CPU kernels, float and int8 (runtime/kernels)",
    "platform": "start-up, UART, semihosting, newlib calls, timer (firmware/baremetal)",
    "image": "the image's main (firmware/baremetal/main.cc)",
    "embedded": "embedded package + input (embed.S)",
    "libstdc++": "libstdc++ / libsupc++",
    "libc": "newlib libc + libm",
    "libgcc": "libgcc",
}
CORE_PARTS = ["core", "package", "exec", "drivers"]


def part_of(path):
    m = re.search(r"libloom_bm_(\w+)\.a\(", path)
    if m:
        return m.group(1)
    if "libstdc++" in path or "libsupc++" in path:
        return "libstdc++"
    if re.search(r"lib(c|m|g)(_nano)?\.a\(", path):
        return "libc"
    if "libgcc" in path:
        return "libgcc"
    if "_embed.S" in path:
        return "embedded"
    if "main.cc" in path:
        return "image"
    return "other"


def kind_of(section):
    if section.startswith((".text", ".glue", ".vfp11", ".v4_bx", ".init", ".fini", ".vectors")):
        return "text"
    if section.startswith((".rodata", ".ARM.ex", ".init_array", ".fini_array", ".preinit")):
        return "rodata"
    if section.startswith((".data", ".bss", "COMMON")):
        return "data"
    return None


def parse(path, functions=None):
    """Sizes per part and kind; with a list in `functions`, also appends (bytes, part, object,
    section) for every kept text section."""
    sizes = {}
    in_map = False
    pending = None
    with open(path) as f:
        for line in f:
            if line.startswith("Linker script and memory map"):
                in_map = True
                continue
            if not in_map:
                continue
            m = re.match(r"^ (\.\S+|COMMON)\s*$", line)
            if m:
                pending = m.group(1)
                continue
            m = re.match(r"^ (\.\S+|COMMON)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$", line)
            if m:
                section, size, source = m.group(1), int(m.group(3), 16), m.group(4)
            elif pending:
                m = re.match(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$", line)
                pending_section, pending = pending, None
                if not m:
                    continue
                section, size, source = pending_section, int(m.group(2), 16), m.group(3)
            else:
                continue
            kind = kind_of(section)
            if kind is None or size == 0:
                continue
            entry = sizes.setdefault(part_of(source), {"text": 0, "rodata": 0, "data": 0})
            entry[kind] += size
            if functions is not None and kind == "text":
                obj = re.search(r"\(([^)]*)\)\s*$", source)
                functions.append((size, part_of(source), obj.group(1) if obj else source, section))
    return sizes


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                             check=True).stdout.split("\n")
        return out[:len(names)] if len(out) >= len(names) else names
    except (OSError, subprocess.CalledProcessError):
        return names


def list_functions(path, count):
    rows = []
    parse(path, rows)
    rows = sorted((r for r in rows if r[1] in CORE_PARTS), reverse=True)[:count]
    names = demangle([re.sub(r"^\.text\.", "", r[3]) for r in rows])
    print("| text | part | object | function |")
    print("| ---: | --- | --- | --- |")
    for (size, part, obj, _), name in zip(rows, names):
        name = re.sub(r"std::__cxx11::basic_string<char, std::char_traits<char>, "
                      r"std::allocator<char> >", "std::string", name)
        if len(name) > 110:
            name = name[:107] + "..."
        print(f"| {size} | {part} | {obj} | `{name}` |")


def main(argv):
    if not argv:
        sys.exit(__doc__.strip())
    if argv[0] == "--functions":
        if len(argv) != 3 or not argv[1].isdigit():
            sys.exit(__doc__.strip())
        list_functions(argv[2], int(argv[1]))
        return
    cpu = parse(argv[0])
    mmio = parse(argv[1]) if len(argv) > 1 else None
    order = [p for p in PART_NAMES if p in cpu or (mmio and p in mmio)]
    order += sorted(p for p in cpu if p not in PART_NAMES)
    head = "| part | text | rodata | data+bss |"
    rule = "| --- | ---: | ---: | ---: |"
    if mmio:
        head += " text, mmio image |"
        rule += " ---: |"
    print(head)
    print(rule)
    for p in order:
        e = cpu.get(p, {"text": 0, "rodata": 0, "data": 0})
        row = f"| {PART_NAMES.get(p, p)} | {e['text']} | {e['rodata']} | {e['data']} |"
        if mmio:
            row += f" {mmio.get(p, {'text': 0})['text']} |"
        print(row)
    core = sum(cpu.get(p, {"text": 0})["text"] for p in CORE_PARTS)
    kernels = cpu.get("kernels", {"text": 0})["text"]
    print()
    print(f"Core without kernels (core + package + exec + drivers with the cpu device), text: "
          f"{core} bytes ({core / 1024:.1f} KiB; goal 32 KiB). Kernels, text: {kernels} bytes "
          f"({kernels / 1024:.1f} KiB).")
    if mmio:
        proto = mmio.get("protocol", {"text": 0})["text"]
        print(f"Register protocol + mmio transports (mmio image), text: {proto} bytes "
              f"({proto / 1024:.1f} KiB).")


if __name__ == "__main__":
    main(sys.argv[1:])
