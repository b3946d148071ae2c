#!/usr/bin/env python3
"""Counts, per iteration of a benchmark's `--profile-...` loop, the instructions and the atomic instructions run.

Usage: python3 Tools/count-atomics.py BINARY MODE [ITERATIONS]
  e.g. python3 Tools/count-atomics.py .build/release/LifecycleBenchmark --profile-cell-keys 10000

MODE is a flag with which the benchmark runs only one loop, `PROFILE_ITERATIONS` times (from the environment) and
exits: today `LifecycleBenchmark --profile-cell-keys` (a cell's four keys observed and unobserved through one
`KeyValueObserver`). A binary that does not know MODE, or does not read `PROFILE_ITERATIONS`, is refused before
valgrind runs (exit 4), since it would run its whole benchmark under callgrind.

Runs the loop under callgrind twice, with ITERATIONS and twice as many (`PROFILE_ITERATIONS`), and prints the
difference divided by ITERATIONS, so that start-up cancels: the instructions, the atomic instructions (x86-64: those
with a `lock` prefix, `xchg` with memory, `mfence`), and which functions ran the atomic ones.

Why atomic instructions: on this machine each one costs about 9 to 13 ns (a `lock xadd` in a loop), as much as some
fifty ordinary instructions, so a registration's time follows them more than its instruction count. Callgrind counts
how often each instruction ran (`--dump-instr=yes`); the atomic ones are found in each object's disassembly
(`objdump -d`), placed at the address where callgrind saw the object's functions begin.
Needs valgrind, binutils (objdump, nm) and strip; the binary is copied without its debug information, which this
valgrind rejects.
"""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile


def run(binary, mode, iterations, out):
    env = dict(os.environ, PROFILE_ITERATIONS=str(iterations))
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-strings=no", "--compress-pos=no",
         f"--callgrind-out-file={out}", binary, mode],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def parse(path):
    """Executions per (object, function, address), and the total instruction count."""
    counts = collections.Counter()
    total = 0
    obj = function = None
    after_call = False
    with open(path, errors="replace") as lines:
        for line in lines:
            if line.startswith("ob="):
                obj = line[3:].strip()
            elif line.startswith("fn="):
                function = line[3:].strip()
            elif line.startswith("calls="):
                after_call = True
            elif line.startswith("0x"):
                if after_call:  # the call's inclusive cost, not executions of the call instruction
                    after_call = False
                    continue
                fields = line.split()
                executions = int(fields[-1])
                counts[(obj, function, int(fields[0], 16))] += executions
                total += executions
    return counts, total


def symbols(obj):
    table = {}
    for flags in ([], ["-D"]):
        listing = subprocess.run(["nm", *flags, "--defined-only", obj], capture_output=True, text=True).stdout
        for line in listing.splitlines():
            fields = line.split()
            if len(fields) == 3:
                table.setdefault(fields[2], int(fields[0], 16))
    return table


def atomic_offsets(obj):
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True, text=True).stdout
    offsets = set()
    for line in listing.splitlines():
        match = re.match(r"\s*([0-9a-f]+):\s+(\S.*)", line)
        if not match:
            continue
        instruction = match.group(2)
        if instruction.startswith(("lock", "mfence")) or (instruction.startswith("xchg") and "(" in instruction):
            offsets.add(int(match.group(1), 16))
    return offsets


def fail(code, message):
    print(message, file=sys.stderr)
    sys.exit(code)


def main():
    if len(sys.argv) not in (3, 4):
        fail(2, __doc__.strip().splitlines()[2])
    binary, mode = sys.argv[1], sys.argv[2]
    iterations = sys.argv[3] if len(sys.argv) == 4 else "10000"
    if not iterations.isdigit() or int(iterations) == 0:
        fail(2, f"count-atomics: ITERATIONS must be a positive integer, not {iterations!r}")
    iterations = int(iterations)
    if not os.path.isfile(binary):
        fail(3, f"count-atomics: no such binary: {binary}")
    with open(binary, "rb") as file:
        text = file.read()
    if not mode.startswith("--profile-") or mode.encode() not in text or b"PROFILE_ITERATIONS" not in text:
        fail(4, f"count-atomics: {binary} has no {mode} loop reading PROFILE_ITERATIONS (see the usage)")
    missing = [tool for tool in ("valgrind", "objdump", "nm", "strip") if shutil.which(tool) is None]
    if missing:
        fail(5, f"count-atomics: needs {', '.join(missing)} (valgrind, binutils)")
    with tempfile.TemporaryDirectory() as folder:
        copy = os.path.join(folder, os.path.basename(binary))
        shutil.copy(binary, copy)
        subprocess.run(["strip", "-g", copy], check=True)
        outputs = [os.path.join(folder, f"callgrind.{k}") for k in (1, 2)]
        run(copy, mode, iterations, outputs[0])
        run(copy, mode, 2 * iterations, outputs[1])
        (first, first_total), (second, second_total) = parse(outputs[0]), parse(outputs[1])
        per_function = collections.Counter()
        atomics = 0.0
        for obj in {key[0] for key in second}:
            if not obj or not os.path.exists(obj):
                continue
            table = symbols(obj)
            # Where the object was loaded: the most common difference between where callgrind saw a function's first
            # instruction and where the symbol table puts it.
            starts = {}
            for (o, function, address) in second:
                if o == obj:
                    starts[function] = min(starts.get(function, address), address)
            votes = collections.Counter(address - table[f] for f, address in starts.items() if f in table)
            if not votes:
                continue
            base = votes.most_common(1)[0][0]
            offsets = atomic_offsets(obj)
            for key, executions in second.items():
                if key[0] == obj and key[2] - base in offsets:
                    difference = (executions - first.get(key, 0)) / iterations
                    if difference > 0:
                        per_function[key[1]] += difference
                        atomics += difference
    print(f"{mode}: {(second_total - first_total) / iterations:,.0f} instructions, "
          f"{atomics:.1f} atomic instructions per iteration")
    for function, count in per_function.most_common(20):
        if count >= 0.05:
            print(f"  {count:6.2f}  {function[:140]}")


if __name__ == "__main__":
    main()
