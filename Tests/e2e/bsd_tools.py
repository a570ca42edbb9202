"""A stand-in for a Mac's `sh` and its BSD command-line tools, as far as a Linux machine goes.

`macos_sh(tmp_path)` gives the command line and environment to run a script the way macOS runs
`sh script`: `/bin/sh` there is bash 3.2 in POSIX mode, with `echo` expanding backslashes
(xpg_echo). Here that is this machine's bash with `--posix`, `-O xpg_echo` and
`BASH_COMPAT=3.2`, which turns back the behaviours bash documents as changed since 3.2.

Its PATH is one folder of wrappers, one per tool the script and its hooks use (a Mac has each
in /bin or /usr/bin), and nothing else: any other tool is not found at all, so a tool the
script starts to use must be added here with its BSD options. Each wrapper checks its arguments against the options
in the SYNOPSIS of the macOS (FreeBSD) man page of that tool and refuses, with exit status 64
(EX_USAGE, as those tools do) and a message on stderr, what the BSD tool would refuse or read
differently:

- every GNU long option (`--parents`, `--tmpdir`, `--reference`, ...) and every short option
  the BSD tool does not have (`stat -c`, `date -d`, `cp -t`, `grep -P`, `mv -T`, ...);
- `sed -i` without its extension argument (BSD `sed -i 's/a/b/' f` takes the script as the
  extension; `sed -i '' ...` and `sed -i.bak ...` are given to GNU sed in its own spelling);
- an option after an operand (`grep x file -v`): GNU tools reorder them, BSD getopt stops at
  the first operand and reads the rest as file names;
- GNU extensions of basic regular expressions in `sed` and `grep` (`\\+`, `\\?`, `\\|`, `\\s`,
  `\\w`, `\\b`, `\\<`, `\\>`, `\\t`), which BSD regex reads as the plain characters;
- `head -n -N` (negative counts), `date +%N`, gawk-only awk functions (`gensub`, `strftime`,
  `systime`, `asort`, `PROCINFO`, `IGNORECASE`);
- and `ls -l` prints an `@` after the mode, as macOS does for a file with extended attributes
  (most files a Mac downloads or a Mac app writes), so a script that compares whole mode
  strings sees what it would see there.

What it cannot tell: bash 3.2's own parser bugs and missing features (the real 3.2 is not
here; BASH_COMPAT changes behaviour, not grammar), the BSD tools' real output formats beyond
`ls`'s mode column, APFS, macOS's python3 stub that asks to install the developer tools, and
anything else only a real Mac shows. It approximates; it is no Mac.
"""

import os
import shutil
import sys
from pathlib import Path

# The options of each tool: getopt letters, ":" after one that takes a value (macOS man pages,
# SYNOPSIS). A value of None: the tool's arguments are not options (stty's settings start
# with "-").
OPTIONS = {
    "awk": "F:v:f:",
    "basename": "as:",
    "cat": "belnstuv",
    "chmod": "fhvRHLP",
    "cmp": "bhilsxzn:",
    "cp": "RHLPfinaclpSsvXx",
    "cut": "b:c:f:d:nsw",
    "date": "jnRuI:f:r:v:z:",
    "diff": "abdilNnpqrsTtuwBEeHC:D:L:U:x:X:S:",
    "dirname": "",
    "env": "iP:S:uv",
    "grep": "0123456789A:B:C:D:EFGHIJLMOSRUVZabcd:e:f:hilm:noqrsuvwxyz",
    "head": "n:c:",
    "id": "AFGMPagnpru",
    "ln": "FLPfhinsvw",
    "ls": "@ABCFGHILOPRSTUWabcdefghiklmnopqrstuvwxy1%,",
    "mkdir": "m:pv",
    "mktemp": "dqt:u",
    "mv": "finhv",
    "rm": "fidIPRrvWx",
    "rmdir": "pv",
    "sed": "EI:i:e:f:nru",
    "sort": "bcCdfghik:Mmno:RrsSt:T:uVz",
    "stat": "FLnqf:lrsxt:",
    "stty": None,
    "tail": "Fb:c:fn:qr",
    "tee": "ai",
    "touch": "A:acd:fhmr:t:",
    "tr": "Ccdsu",
    "uname": "amnoprsv",
    "uniq": "cdiuf:s:",
    "wc": "clmwL",
}

# Found as they are: no option of theirs is used, or they are the same programs on a Mac.
PLAIN = ["sh", "bash", "true", "false", "sleep", "printf", "test", "[", "expr", "which", "tty"]

BRE_EXTENSIONS = "+?|swSWb<>t"
GAWK_ONLY = ["gensub(", "strftime(", "systime(", "asort(", "asorti(", "PROCINFO", "IGNORECASE", "@include"]

CHECKER = r'''
import os, sys
tool = os.path.basename(sys.argv[0])
spec = SPEC
args = sys.argv[1:]

def refuse(why):
    sys.stderr.write(f"{tool}: {why}: refused as macOS's {tool} would refuse or misread it (bsd_tools.py)\n")
    sys.exit(64)

def gnu_regex(text):
    i = 0
    while i < len(text) - 1:
        if text[i] == "\\":
            if text[i + 1] in BRE:
                refuse(f"GNU regular expression extension \\{text[i + 1]} in {text!r}")
            i += 2
        else:
            i += 1

operands, values = [], {}
if spec is None:
    operands = args
else:
    letters = {}
    for n, c in enumerate(spec):
        if c != ":":
            letters[c] = n + 1 < len(spec) and spec[n + 1] == ":"
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        if arg.startswith("--"):
            refuse(f"long option {arg}")
        if tool == "head" and arg[1:].isdigit():     # the old head -5
            i += 1
            continue
        j = 1
        while j < len(arg):
            c = arg[j]
            if c not in letters:
                refuse(f"option -{c}")
            if letters[c]:
                value = arg[j + 1:]
                if value == "":
                    if i + 1 >= len(args):
                        refuse(f"option -{c} needs a value")
                    i += 1
                    value = args[i]
                values.setdefault(c, []).append(value)
                break
            values.setdefault(c, []).append(None)
            j += 1
        i += 1
    operands = args[i:]
    # BSD getopt stops at the first operand: an option after one is read as a file name.
    for operand in operands[1:]:
        if operand.startswith("-") and operand != "-" and not (tool in ("awk",) and "=" in operand):
            refuse(f"option {operand} after an operand (GNU reorders them; BSD reads a file of that name)")

if tool == "sed":
    for extension in values.get("i", []):
        if extension.startswith("-") or any(ch in extension for ch in "/;{} "):
            refuse(f"-i takes an extension first (as in -i ''), not {extension!r}")
    extended = "E" in values or "r" in values
    scripts = [v for v in values.get("e", [])] or operands[:1]
    if not extended:
        for script in scripts:
            gnu_regex(script)
elif tool == "grep":
    extended = "E" in values or "F" in values
    patterns = values.get("e", []) or operands[:1]
    if not extended:
        for pattern in patterns:
            gnu_regex(pattern)
elif tool == "head":
    for count in values.get("n", []) + values.get("c", []):
        if not count.isdigit():
            refuse(f"a count of {count!r}")
elif tool == "date":
    for operand in operands:
        if operand.startswith("+") and "%N" in operand:
            refuse("%N in the format")
elif tool == "awk":
    program = " ".join(operands[:1])
    for name in GAWK:
        if name in program:
            refuse(f"gawk's {name}")

real = REAL
if tool == "sed":
    # Run by GNU sed: BSD's "-i EXT" (EXT may be '') is GNU's "-iEXT"; the rest as given.
    rebuilt = []
    for letter, given in values.items():
        for value in given:
            if letter in "iI":
                rebuilt.append("-i" + value)
            elif value is None:
                rebuilt.append("-" + letter)
            else:
                rebuilt += ["-" + letter, value]
    args = rebuilt + operands
if tool == "ls" and ("l" in values or "n" in values):
    import subprocess
    done = subprocess.run([real] + args, capture_output=True)
    out = []
    for line in done.stdout.decode("utf-8", "surrogateescape").split("\n"):
        # macOS: "-rw-r--r--@ 1 jo staff ..." for a file with extended attributes.
        if len(line) > 10 and line[0] in "-dlbcps" and line[10] == " ":
            line = line[:10] + "@" + line[10:]
        out.append(line)
    sys.stdout.write("\n".join(out))
    sys.stderr.buffer.write(done.stderr)
    sys.exit(done.returncode)
os.execv(real, [real] + args)
'''


def make_tools(folder: Path) -> Path:
    """A folder of BSD stand-ins (see the module's docstring) and nothing else."""
    folder.mkdir(parents=True, exist_ok=True)
    for tool, spec in OPTIONS.items():
        real = shutil.which(tool, path="/usr/bin:/bin")
        if real is None:
            continue
        source = (CHECKER.replace("SPEC", repr(spec)).replace("REAL", repr(real))
                  .replace("BRE", repr(BRE_EXTENSIONS)).replace("GAWK", repr(GAWK_ONLY)))
        path = folder / tool
        path.write_text(f"#!{sys.executable} -S\n" + source)
        path.chmod(0o755)
    for tool in PLAIN:
        real = shutil.which(tool, path="/usr/bin:/bin")
        if real is not None and not (folder / tool).exists():
            (folder / tool).symlink_to(real)
    return folder


def macos_sh(tmp_path: Path) -> tuple[list[str], dict, str]:
    """(the shell's command line, its extra environment, the PATH of BSD stand-ins)."""
    tools = make_tools(tmp_path / "bsd-tools")
    return [shutil.which("bash"), "--posix", "-O", "xpg_echo"], {"BASH_COMPAT": "3.2"}, str(tools)
