#!/usr/bin/env python3
"""Reads a callgrind dump of `bench/cost.py --callgrind --profile` (bench/results/callgrind.<row>.out)
and prints instructions per request, Swift names demangled (`swift demangle`):

    bench/callgrind_read.py self DUMP REQUESTS [N]            the N functions with the most own instructions
    bench/callgrind_read.py inclusive DUMP REQUESTS TEXT...   functions whose name holds a TEXT, with their callees
    bench/callgrind_read.py sites DUMP REQUESTS NAME...       each call a function NAME makes, in code order

`sites` is how a handler's statements are told apart: the dump keeps each call site
(`--dump-instr=yes`), so the `Statement.run` of the INSERT and of the key's counts in one
closure are two lines, in the order of the machine code (the order of the source, as a rule).
callgrind_annotate sums them, and here it also charges the static binary's
`(below main)'2` with every instruction as its own, which this reader does not.
"""

import collections
import re
import shutil
import subprocess
import sys


class Dump:
    """Own cost per function, inclusive cost per (caller, callee), and the call sites."""

    def __init__(self, path: str):
        names: dict[str, str] = {}

        def name(token: str) -> str:
            match = re.match(r"\((\d+)\)(?: (.*))?", token)
            if not match:
                return token
            if match.group(2):
                names[match.group(1)] = match.group(2)
            return names[match.group(1)]

        self.own = collections.Counter()
        self.calls = collections.defaultdict(collections.Counter)
        self.counts = collections.defaultdict(collections.Counter)
        self.sites = collections.defaultdict(list)
        positions, function, callee, pending, address = 1, None, None, None, 0
        for line in open(path, errors="replace"):
            line = line.rstrip("\n")
            if line.startswith("positions:"):
                positions = len(line.split()) - 1
            elif line.startswith("fn="):
                function, pending = name(line[3:]), None
            elif line.startswith("cfn="):
                callee = name(line[4:])
            elif line.startswith("calls="):
                pending = int(line[6:].split()[0])
            elif line[:1].isdigit() or line[:1] in ("+", "-", "*"):
                parts = line.split()
                if len(parts) <= positions:
                    continue
                if positions == 2:  # instruction address, then line
                    if parts[0].startswith("0x"):
                        address = int(parts[0], 16)
                    elif parts[0][0] in "+-":
                        address += int(parts[0])
                cost = int(parts[positions])
                if pending is None:
                    self.own[function] += cost
                else:
                    self.calls[function][callee] += cost
                    self.counts[function][callee] += pending
                    self.sites[function].append((address, callee, pending, cost))
                    pending = None
        self.functions = set(self.own) | set(self.calls)
        self.shown = dict(zip(self.functions, demangle(list(self.functions))))

    def inclusive(self, function: str) -> int:
        return self.own[function] + sum(self.calls[function].values())

    def called(self, function: str) -> int:
        return sum(callees[function] for callees in self.counts.values() if function in callees)

    def named(self, text: str) -> list[str]:
        return [f for f in self.functions if text in self.shown[f]]


def demangle(names: list[str]) -> list[str]:
    if not shutil.which("swift"):
        return names
    out = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                         capture_output=True, text=True).stdout.splitlines()
    return out if len(out) == len(names) else names


def print_self(dump: Dump, requests: int, top: int = 40):
    total = sum(dump.own.values())
    print(f"{total / requests:>10,.0f}  100.0%  all instructions per request")
    for function, cost in dump.own.most_common(top):
        print(f"{cost / requests:>10,.0f} {100 * cost / total:6.1f}%  {dump.shown[function][:130]}")


def print_inclusive(dump: Dump, requests: int, texts: list[str], top: int = 60):
    rows = sorted(((dump.inclusive(f), f) for text in texts for f in dump.named(text)), reverse=True)
    for cost, function in rows[:top]:
        print(f"{cost / requests:>10,.0f}  ×{dump.called(function) / requests:<6.2f} {dump.shown[function][:130]}")


def print_sites(dump: Dump, requests: int, names: list[str], floor: float = 200):
    for name in names:
        for function in [f for f in dump.functions if dump.shown[f] == name]:
            print(f"{dump.inclusive(function) / requests:>10,.0f}  ×{dump.called(function) / requests:<6.2f} {name}")
            sites = sorted(dump.sites[function])
            shown = demangle([callee for _, callee, _, _ in sites])
            for (_, _, count, cost), callee in zip(sites, shown):
                if cost / requests >= floor:
                    print(f"{cost / requests:>14,.0f}  ×{count / requests:<6.2f} {callee[:120]}")


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[1] not in ("self", "inclusive", "sites"):
        print(__doc__, file=sys.stderr)
        return 2
    dump, requests = Dump(argv[2]), int(argv[3])
    if argv[1] == "self":
        print_self(dump, requests, int(argv[4]) if len(argv) > 4 else 40)
    elif argv[1] == "inclusive":
        print_inclusive(dump, requests, argv[4:])
    else:
        print_sites(dump, requests, argv[4:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
