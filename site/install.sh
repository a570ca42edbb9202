#!/bin/sh
# Relaydeck agent setup for the server at @PUBLIC_URL@
#
#   curl -fsSL @PUBLIC_URL@/install | sh                                       (asks for the key)
#   curl -fsSL @PUBLIC_URL@/install | RELAYDECK_API_KEY="$(cat key-file)" sh   (no questions)
#   sh install.sh --key mck_...     (works, but every user of the machine sees the key in ps)
#
# It asks for an API key (make one in the Relaydeck app, one per agent), checks it against the
# server, and then, for each agent it finds on this machine (Claude Code, Codex, Cursor,
# Gemini CLI), adds this server as the MCP server "relaydeck" and, where the agent has hooks,
# the inbox hooks: the agent gets the person's messages and answers at the start of a session,
# with each prompt, and before it stops. Running it again replaces what it wrote before and
# leaves everything else in those files as it was. Nothing is sent anywhere but this server.
set -eu

SERVER='@PUBLIC_URL@'
MCP_URL="$SERVER/mcp"
NAME=relaydeck
CONFIG_DIR="${XDG_CONFIG_HOME:-$HOME/.config}/relaydeck"
KEY_FILE="$CONFIG_DIR/api-key"
HOOK="$CONFIG_DIR/inbox-hook"
# Prints the Authorization header from the key file, for agents that can run a command for their
# headers (Claude Code's headersHelper): the key then stays in the one file above.
HEADERS="$CONFIG_DIR/mcp-headers"
# What each file and folder was before the first run (a copy and its mode, or "absent"), so that
# --uninstall can give back exactly what was there.
BEFORE_DIR="$CONFIG_DIR/before"

say() { printf '%s\n' "$*" | unscratch; }
# In a dry run the script works on copies in a scratch folder: what it says names the real
# paths, and never the key.
unscratch() {
    if [ -n "${scratch:-}" ]; then
        FROM1=$HOME TO1=$real_home FROM2=$CONFIG_DIR TO2=$real_config FROM3=$key TO3="mck_(the key)" awk '{
            for (n = 1; n <= 3; n++) {
                from = ENVIRON["FROM" n]; to = ENVIRON["TO" n]; out = ""; line = $0
                while (from != "" && (i = index(line, from)) > 0) {
                    out = out substr(line, 1, i - 1) to; line = substr(line, i + length(from))
                }
                $0 = out line
            }
            print
        }'
    else
        cat
    fi
}
warn() { printf 'relaydeck: %s\n' "$*" | unscratch >&2; }
die() {
    warn "$*"
    exit 1
}

key="${RELAYDECK_API_KEY:-}"
key_in_argv=""
uninstall=""
dry_run=""
while [ $# -gt 0 ]; do
    case $1 in
    --uninstall) uninstall=yes; shift ;;
    --dry-run) dry_run=yes; shift ;;
    --key) [ $# -ge 2 ] || die "--key needs a value"; key=$2; key_in_argv=yes; shift 2 ;;
    --key=*) key=${1#--key=}; key_in_argv=yes; shift ;;
    -h | --help)
        say "usage: sh install.sh            (asks for the key; or RELAYDECK_API_KEY=mck_... in the environment)"
        say "       sh install.sh --dry-run  (shows the changes, writes nothing)"
        say "       sh install.sh --key mck_...   (the key on the command line, where every user sees it)"
        say "       sh install.sh --uninstall       (removes what the script added)"
        exit 0
        ;;
    *) die "unknown argument: $1 (usage: sh install.sh [--key mck_...])" ;;
    esac
done

if [ -n "$uninstall" ]; then
    python3 -c '' >/dev/null 2>&1 || die "--uninstall needs python3"
    if command -v claude >/dev/null 2>&1; then
        claude mcp remove --scope user "$NAME" >/dev/null 2>&1 || true
    fi
    python3 - "$HOME" "$BEFORE_DIR" "$NAME" <<'PY_EOF' || die "could not undo everything (see above)"
import json, os, re, sys
home, before_dir, name = sys.argv[1:4]
mark = "relaydeck/inbox-hook"
failed = False

def without_comments(text):
    out, i, n = [], 0, len(text)
    while i < n:
        if text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1]); i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        else:
            out.append(text[i]); i += 1
    return "".join(out)

def read_json(text, jsonc):
    return json.loads(without_comments(text) if jsonc else text) if text.strip() else {}

def strip_json(text, jsonc, flags=()):
    data = read_json(text, jsonc)
    if not isinstance(data, dict):
        return data
    # Settings the install added (they were not in the file before it): (table, member, and
    # whether the table itself was the install's).
    for table, member, table_was_ours in flags:
        if isinstance(data.get(table), dict):
            data[table].pop(member, None)
            if table_was_ours and data[table] == {}:
                del data[table]
    servers = data.get("mcpServers")
    if isinstance(servers, dict):
        servers.pop(name, None)
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        for event in list(hooks):
            if isinstance(hooks[event], list):
                hooks[event] = [e for e in hooks[event] if mark not in json.dumps(e)]
    return data

def prune(data):
    # What an entry of ours leaves behind when it goes: empty lists, an empty hooks or
    # mcpServers object, Cursor's version beside no hooks.
    if not isinstance(data, dict):
        return data
    data = json.loads(json.dumps(data))
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        for event in [e for e, v in hooks.items() if v == []]:
            del hooks[event]
    for member in ["hooks", "mcpServers"]:
        if data.get(member) == {}:
            del data[member]
    if data == {"version": 1}:
        data = {}
    return data

def strip_toml(text, flag_was_ours):
    kept, table, skip = [], "", False
    ours = rf"""(?:{re.escape(name)}|"{re.escape(name)}"|'{re.escape(name)}')"""
    for line in text.splitlines(keepends=True):
        header = re.match(r"\s*\[\[?\s*([^\]]*?)\s*\]", line)
        if header:
            table = re.sub(r"\s*\.\s*", ".", header.group(1)).replace('"', "").replace("'", "")
            skip = table == f"mcp_servers.{name}" or table.startswith(f"mcp_servers.{name}.")
        if skip or (table == "mcp_servers" and re.match(rf"\s*{ours}\s*[.=]", line)):
            continue
        if flag_was_ours and table == "features" and re.match(r"\s*codex_hooks\s*=\s*true\s*$", line):
            continue
        kept.append(line)
    # A [features] table the install added, now empty, goes too.
    if flag_was_ours:
        for i in range(len(kept) - 1, -1, -1):
            if re.match(r"\s*\[\s*features\s*\]\s*$", kept[i]) and all(not l.strip() for l in kept[i + 1:]):
                del kept[i:]
                break
    body = "".join(kept).rstrip()
    return body + "\n" if body else ""

def strip_env(text):
    return "".join(l for l in text.splitlines(keepends=True)
                   if not re.match(r"\s*(export\s+)?RELAYDECK_API_KEY=", l))

def state(slug):
    try:
        with open(os.path.join(before_dir, slug + ".state")) as f:
            return f.read().split()
    except OSError:
        return None

def mode_of(letters):
    bits = 0
    for letter, bit in zip(letters[:9], [0o400, 0o200, 0o100, 0o40, 0o20, 0o10, 0o4, 0o2, 0o1]):
        if letter not in "-":
            bits |= bit
    return bits

def replace(path, data, mode):
    tmp = path + ".relaydeck-tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as f:
        f.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)

# kind: how the file is read; same: whether two versions mean the same settings.
files = [(".claude.json", "claude.json", "json"), (".claude/settings.json", "claude-settings.json", "json"),
         (".codex/config.toml", "codex-config.toml", "toml"), (".codex/.env", "codex-env", "env"),
         (".codex/hooks.json", "codex-hooks.json", "json"),
         (".cursor/mcp.json", "cursor-mcp.json", "json"), (".cursor/hooks.json", "cursor-hooks.json", "json"),
         (".gemini/settings.json", "gemini-settings.json", "jsonc")]
for relative, slug, kind in files:
    path = os.path.join(home, relative)
    if not os.path.exists(path):
        continue
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if kind in ("json", "jsonc"):
            flags = ()
            if slug == "gemini-settings.json":
                # hooksConfig.enabled is the install's only when the file before it had none.
                recorded_first = state(slug)
                first = {}
                if recorded_first and recorded_first[0] == "file":
                    with open(os.path.join(before_dir, slug + ".copy"), encoding="utf-8") as f:
                        first = read_json(f.read(), True)
                if recorded_first and isinstance(first, dict):
                    table = first.get("hooksConfig")
                    if not (isinstance(table, dict) and "enabled" in table):
                        flags = (("hooksConfig", "enabled", "hooksConfig" not in first),)
            now = prune(strip_json(text, kind == "jsonc", flags))
            result = (json.dumps(now, indent=2) + "\n").encode()
            same = lambda old: prune(strip_json(old, kind == "jsonc", flags)) == now
            empty = now == {}
        elif kind == "toml":
            import tomllib
            # features.codex_hooks is the install's only when the file before it had none.
            recorded_first = state(slug)
            flag_was_ours = False
            if recorded_first and recorded_first[0] == "absent":
                flag_was_ours = True
            elif recorded_first and recorded_first[0] == "file":
                with open(os.path.join(before_dir, slug + ".copy"), encoding="utf-8") as f:
                    first = tomllib.loads(f.read())
                flag_was_ours = "codex_hooks" not in (first.get("features") or {})
            stripped = strip_toml(text, flag_was_ours)
            now = tomllib.loads(stripped)
            result = stripped.encode()
            same = lambda old: tomllib.loads(old) == now
            empty = stripped == ""
        else:
            stripped = strip_env(text)
            result = stripped.encode()
            same = lambda old: strip_env(old) == stripped
            empty = stripped == ""
    except Exception as error:
        print(f"relaydeck: {path}: cannot undo the change ({error}); left as it is", file=sys.stderr)
        failed = True
        continue
    recorded = state(slug)
    mode = os.stat(path).st_mode & 0o7777
    if recorded and recorded[0] == "absent" and empty:
        os.remove(path)
        continue
    if recorded and recorded[0] == "file":
        with open(os.path.join(before_dir, slug + ".copy"), "rb") as f:
            old = f.read()
        if same(old.decode("utf-8")):
            # Nothing else changed since: the file as it was, byte for byte, with its mode.
            replace(path, old, mode_of(recorded[1]))
            continue
    # Changed since by someone else: only our entries go.
    replace(path, result, mode)
for relative in [".gemini/settings.json.before-relaydeck"]:
    if os.path.exists(os.path.join(home, relative)):
        os.remove(os.path.join(home, relative))
for relative, slug in [(".claude", "claude-dir"), (".codex", "codex-dir"), (".cursor", "cursor-dir"),
                       (".gemini", "gemini-dir")]:
    if state(slug) == ["absent"]:
        try:
            os.rmdir(os.path.join(home, relative))
        except OSError:
            pass    # something else is in it now
sys.exit(1 if failed else 0)
PY_EOF
    config_parent_state=$(cat "$BEFORE_DIR/config-parent.state" 2>/dev/null || :)
    rm -f "$KEY_FILE" "$HOOK" "$HEADERS"
    rm -rf "$BEFORE_DIR"
    rmdir "$CONFIG_DIR" 2>/dev/null || :
    [ "$config_parent_state" != absent ] || rmdir "$(dirname "$CONFIG_DIR")" 2>/dev/null || :
    say "Removed the Relaydeck MCP server and hooks from the agents' settings, and $CONFIG_DIR."
    exit 0
fi

if [ -z "$key" ]; then
    # Piped into sh, standard input is the script itself: ask on the terminal.
    # (A subshell: a failed redirection of a special built-in would end the script itself.)
    if (: </dev/tty) 2>/dev/null; then
        # Echo off before the question, so that nothing typed at once shows; on again whatever
        # happens to the read.
        stty -echo </dev/tty 2>/dev/null || true
        trap 'stty echo </dev/tty 2>/dev/null' EXIT
        trap 'stty echo </dev/tty 2>/dev/null; exit 130' INT TERM
        printf 'API key for %s (from the Relaydeck app, starts with mck_): ' "$SERVER" >/dev/tty
        IFS= read -r key </dev/tty || key=""
        stty echo </dev/tty 2>/dev/null || true
        trap - EXIT INT TERM
        printf '\n' >/dev/tty
    else
        die "no API key: pass --key mck_... or set RELAYDECK_API_KEY"
    fi
fi

# mck_ and 43 letters and digits; anything else would also be unsafe to write into files.
case $key in
mck_*) ;;
*) die "an API key starts with mck_ (an account token, mca_..., does not work for agents)" ;;
esac
rest=${key#mck_}
case $rest in *[!0-9A-Za-z]*) die "the API key has characters a key never has" ;; esac
[ ${#rest} -eq 43 ] || die "the API key has the wrong length (mck_ and 43 characters)"
# The shell's own command line has it then, for as long as the script runs.
[ -z "$key_in_argv" ] ||
    warn "--key put the key on this command line, where every user of the machine can read it (ps); RELAYDECK_API_KEY in the environment, or typing it at the question, does not"

command -v curl >/dev/null 2>&1 || die "curl is needed (for the check now and for the hooks later)"
# The key goes to curl on its standard input (a config line), never on its command line,
# where every user of the machine could read it in the process list.
status=$(printf 'header = "Authorization: Bearer %s"\n' "$key" |
    curl -sS -K - -o /dev/null -w '%{http_code}' --max-time 20 "$SERVER/v1/agents") || die "cannot reach $SERVER"
case $status in
200) ;;
401) die "the server does not know this API key (deleted, or made on another server?)" ;;
*) die "the server answered $status to the key check; is $SERVER a Relaydeck server?" ;;
esac

umask 077
# The files the script may write, under the home folder.
AGENT_FILES=".claude.json .claude/settings.json .codex/config.toml .codex/.env .codex/hooks.json
.cursor/mcp.json .cursor/hooks.json .gemini/settings.json"
if [ -n "$dry_run" ]; then
    command -v diff >/dev/null 2>&1 || die "--dry-run needs diff"
    scratch=$(mktemp -d 2>/dev/null) || die "--dry-run: cannot make a temporary folder"
    trap 'rm -rf "$scratch"' EXIT
    trap 'rm -rf "$scratch"; exit 130' INT TERM
    real_home=$HOME
    real_config=$CONFIG_DIR
    for dir in .claude .codex .cursor .gemini; do
        [ ! -d "$HOME/$dir" ] || mkdir -p "$scratch/home/$dir"
    done
    mkdir -p "$scratch/home" "$scratch/config"
    for rel in $AGENT_FILES; do
        [ ! -f "$HOME/$rel" ] || cp -p "$HOME/$rel" "$scratch/home/$rel"
    done
    [ ! -d "$CONFIG_DIR" ] || cp -Rp "$CONFIG_DIR" "$scratch/config/"
    HOME="$scratch/home"
    CONFIG_DIR="$scratch/config/relaydeck"
    KEY_FILE="$CONFIG_DIR/api-key"
    HOOK="$CONFIG_DIR/inbox-hook"
    HEADERS="$CONFIG_DIR/mcp-headers"
    BEFORE_DIR="$CONFIG_DIR/before"
fi
made="Made"
[ -z "$dry_run" ] || made="Would make"
# After a dry run: each file as it would change, as a diff (the key hidden), and its mode.
show_changes() {
    for rel in $AGENT_FILES .config/relaydeck/api-key .config/relaydeck/inbox-hook .config/relaydeck/mcp-headers; do
        case $rel in
        .config/relaydeck/*) old="$real_config/${rel#.config/relaydeck/}" new="$CONFIG_DIR/${rel#.config/relaydeck/}" ;;
        *) old="$real_home/$rel" new="$HOME/$rel" ;;
        esac
        [ -e "$new" ] || continue
        if [ -e "$old" ] && cmp -s "$old" "$new"; then
            [ "$(ls -ld "$old" | cut -c1-10)" = "$(ls -ld "$new" | cut -c1-10)" ] ||
                say "$old: mode $(ls -ld "$old" | cut -c2-10) -> $(ls -ld "$new" | cut -c2-10)"
            continue
        fi
        [ -e "$old" ] || old=/dev/null
        diff -u "$old" "$new" | unscratch || :
    done
}
config_parent_state=present
[ -d "$(dirname "$CONFIG_DIR")" ] || config_parent_state=absent
mkdir -p "$CONFIG_DIR"
# The first run keeps what each file was; later runs keep that first record.
record() {
    [ -e "$BEFORE_DIR/$2.state" ] && return 0
    mkdir -p "$BEFORE_DIR" || return 1
    if [ -f "$1" ]; then
        cp "$1" "$BEFORE_DIR/$2.copy" || return 1
        printf 'file %s\n' "$(ls -ld "$1" | cut -c2-10)" >"$BEFORE_DIR/$2.state"
    elif [ -d "$1" ]; then
        printf 'present\n' >"$BEFORE_DIR/$2.state"
    else
        printf 'absent\n' >"$BEFORE_DIR/$2.state"
    fi
}
[ -e "$BEFORE_DIR/config-parent.state" ] || { mkdir -p "$BEFORE_DIR" && printf '%s\n' "$config_parent_state" >"$BEFORE_DIR/config-parent.state"; }
printf '%s\n' "$key" >"$KEY_FILE.tmp"
mv "$KEY_FILE.tmp" "$KEY_FILE"

# --- The hook program ------------------------------------------------------------------------
cat >"$HOOK.tmp" <<'HOOK_EOF'
#!/bin/sh
# Relaydeck inbox hook, written by the Relaydeck install script: reads the unread items of the
# agent's inbox and hands them to the agent in the form each agent expects. The items it reads
# become read, so one item never continues the agent twice. Silent when the inbox is empty, the
# key file is missing or the server cannot be reached: a hook never stops the agent.
#   inbox-hook AGENT EVENT    AGENT: claude, codex, cursor, gemini; EVENT: start, prompt, stop
SERVER='@PUBLIC_URL@'
agent=${1:-}
event=${2:-}
key_file="${XDG_CONFIG_HOME:-$HOME/.config}/relaydeck/api-key"
[ -r "$key_file" ] || exit 0
key=$(cat "$key_file")
# The agent writes its own input on stdin (JSON).
input=$(cat 2>/dev/null) || input=""
# Cursor also runs the hooks of ~/.claude/settings.json ("third-party hooks"), beside its own
# from ~/.cursor/hooks.json: run by Cursor, the Claude Code entry leaves the inbox to Cursor's,
# else the first would take the unread items from the other.
if [ "$agent" = claude ]; then
    [ -z "${CURSOR_VERSION:-}" ] || exit 0
    case $input in *'"cursor_version"'*) exit 0 ;; esac
fi
host=$(uname -n 2>/dev/null | cut -d. -f1)
# The key on curl's standard input, not its command line (which every local user can see).
# At most 2 s: the agent waits for its hooks, and a server that never answers must not hold it.
body=$(printf 'header = "Authorization: Bearer %s"\n' "$key" |
    curl -fs -K - --connect-timeout 2 --max-time 2 -H "X-Relaydeck-Host: ${host:-unknown}" "$SERVER/v1/inbox?limit=20") || exit 0
case $body in *'"items":[]'*) exit 0 ;; esac
text="Relaydeck inbox: new items from the person or other agents (tasks assigned or changed, answers, messages). Act on them, and use the relaydeck MCP tools to reply or update tasks: $body"
# As a JSON string: the body is one line of JSON, so only \ and " need escaping.
json=$(printf '%s' "$text" | sed 's/\\/\\\\/g; s/"/\\"/g')
case $agent:$event in
claude:start | codex:start) printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s"}}\n' "$json" ;;
claude:prompt | codex:prompt) printf '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"%s"}}\n' "$json" ;;
claude:stop | codex:stop | gemini:stop) printf '{"decision":"block","reason":"%s"}\n' "$json" ;;
cursor:start) printf '{"additional_context":"%s"}\n' "$json" ;;
cursor:stop) printf '{"followup_message":"%s"}\n' "$json" ;;
gemini:start) printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s"}}\n' "$json" ;;
gemini:prompt) printf '{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"%s"}}\n' "$json" ;;
*) printf '%s\n' "$text" ;;
esac
exit 0
HOOK_EOF
chmod 0755 "$HOOK.tmp"
mv "$HOOK.tmp" "$HOOK"

# --- The headers program --------------------------------------------------------------------
cat >"$HEADERS.tmp" <<'HEADERS_EOF'
#!/bin/sh
# Relaydeck MCP headers, written by the Relaydeck install script: prints the Authorization
# header as JSON, read from the key file (mode 0600), so that no agent setting holds the key.
key_file="${XDG_CONFIG_HOME:-$HOME/.config}/relaydeck/api-key"
key=$(cat "$key_file") || exit 1
printf '{"Authorization":"Bearer %s"}\n' "$key"
HEADERS_EOF
chmod 0755 "$HEADERS.tmp"
mv "$HEADERS.tmp" "$HEADERS"

# --- Editing JSON files ----------------------------------------------------------------------
# The operations, done with python3 (or node when there is no python3), each of which reads the
# file, changes one thing and writes it back through a temporary file:
#   set FILE PATH VALUE        sets the member at PATH (dot-separated) to the JSON VALUE
#   default FILE PATH VALUE    the same, only when there is no member at PATH (one the user
#                              set to something else stays, and the script says so)
#   hook FILE PATH ENTRY MARK  in the list at PATH, drops the entries whose JSON contains MARK
#                              and appends the JSON ENTRY
#   check FILE                 only reads the file: fails, writing nothing, when an edit would
#                              refuse it (so that an agent's files are checked before the first
#                              of them changes)
# A file that is not valid JSON is left alone (and the step reported), never overwritten.
# With RELAYDECK_PRIVATE=1 (a file that holds the key) the result is mode 0600 whatever the
# file's mode was; otherwise it keeps its mode.
JSON_TOOL=""
# A python3 that runs: on a Mac without the developer tools, /usr/bin/python3 is only a stub
# that asks to install them and fails.
if python3 -c 'import json' >/dev/null 2>&1; then
    JSON_TOOL=python3
elif command -v node >/dev/null 2>&1; then
    JSON_TOOL=node
fi

json_edit_run() {
    case $JSON_TOOL in
    python3)
        python3 - "$@" <<'PY_EOF'
import json, os, sys
op, path = sys.argv[1], sys.argv[2]
where = sys.argv[3].split(".") if op != "check" else []
# The key comes in the environment (RELAYDECK_KEY), never on this command line.
value = json.loads(sys.argv[4].replace("@RELAYDECK_KEY@", os.environ.get("RELAYDECK_KEY", ""))) if op != "check" else None
def without_comments(text):
    # Gemini CLI reads its settings with // and /* */ comments (stripped outside strings).
    out, i, n = [], 0, len(text)
    while i < n:
        if text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ValueError("a /* comment is not closed")
            out.append(" ")
            i = end + 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)
data = {}
if os.path.exists(path) and os.path.getsize(path) > 0:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        plain = without_comments(text) if os.environ.get("RELAYDECK_JSONC") == "1" else text
        data = json.loads(plain)
    except ValueError as error:
        sys.exit(f"{path} is not valid JSON ({error}); left unchanged")
    if plain != text and op != "check":
        # The rewrite cannot keep the comments: the file as it was stays beside it.
        keep = path + ".before-relaydeck"
        with os.fdopen(os.open(keep, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as f:
            f.write(text)
        print(f"The comments of {path} are not kept in it; the file as it was is {keep}.")
if not isinstance(data, dict):
    sys.exit(f"{path} does not hold a JSON object; left unchanged")
if op == "check":
    sys.exit(0)
node = data
for name in where[:-1]:
    if not isinstance(node.get(name), dict):
        node[name] = {}
    node = node[name]
last = where[-1]
if op == "set":
    node[last] = value
elif op == "default":
    if last not in node:
        node[last] = value
    elif node[last] != value:
        print(f"{'.'.join(where)} is {json.dumps(node[last])} in {path}; left as you set it.")
else:
    mark = sys.argv[5]
    entries = node.get(last) if isinstance(node.get(last), list) else []
    node[last] = [e for e in entries if mark not in json.dumps(e)] + [value]
tmp = path + ".relaydeck-tmp"
if os.path.exists(tmp):
    os.remove(tmp)
# Created 0600, so that the key is never readable by others, not even for a moment.
with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as f:
    json.dump(data, f, indent=2)
    f.write("\n")
if os.environ.get("RELAYDECK_PRIVATE") != "1" and os.path.exists(path):
    os.chmod(tmp, os.stat(path).st_mode & 0o7777)
os.replace(tmp, path)
PY_EOF
        ;;
    node)
        node - "$@" <<'JS_EOF'
const fs = require("fs");
const [op, path, whereText, valueText, mark] = process.argv.slice(2);
// The key comes in the environment (RELAYDECK_KEY), never on this command line.
const where = op === "check" ? [] : whereText.split(".");
const value = op === "check" ? null : JSON.parse(valueText.split("@RELAYDECK_KEY@").join(process.env.RELAYDECK_KEY || ""));
function withoutComments(text) {
  // Gemini CLI reads its settings with // and /* */ comments (stripped outside strings).
  let out = "", i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1); i = j + 1;
    } else if (text.startsWith("//", i)) {
      const end = text.indexOf("\n", i); i = end < 0 ? text.length : end;
    } else if (text.startsWith("/*", i)) {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) throw new Error("a /* comment is not closed");
      out += " "; i = end + 2;
    } else { out += text[i]; i += 1; }
  }
  return out;
}
let data = {};
if (fs.existsSync(path) && fs.statSync(path).size > 0) {
  const text = fs.readFileSync(path, "utf8");
  let plain = text;
  try {
    if (process.env.RELAYDECK_JSONC === "1") plain = withoutComments(text);
    data = JSON.parse(plain);
  } catch (e) { console.error(`${path} is not valid JSON (${e.message}); left unchanged`); process.exit(1); }
  if (plain !== text && op !== "check") {
    // The rewrite cannot keep the comments: the file as it was stays beside it.
    const keep = path + ".before-relaydeck";
    fs.writeFileSync(keep, text, { mode: 0o600 }); fs.chmodSync(keep, 0o600);
    console.log(`The comments of ${path} are not kept in it; the file as it was is ${keep}.`);
  }
}
if (data === null || typeof data !== "object" || Array.isArray(data)) {
  console.error(`${path} does not hold a JSON object; left unchanged`); process.exit(1);
}
if (op === "check") process.exit(0);
let node = data;
for (const name of where.slice(0, -1)) {
  if (node[name] === null || typeof node[name] !== "object" || Array.isArray(node[name])) node[name] = {};
  node = node[name];
}
const last = where[where.length - 1];
if (op === "set") node[last] = value;
else if (op === "default") {
  if (!(last in node)) node[last] = value;
  else if (JSON.stringify(node[last]) !== JSON.stringify(value))
    console.log(`${where.join(".")} is ${JSON.stringify(node[last])} in ${path}; left as you set it.`);
}
else node[last] = (Array.isArray(node[last]) ? node[last] : []).filter(e => !JSON.stringify(e).includes(mark)).concat([value]);
const tmp = path + ".relaydeck-tmp";
if (fs.existsSync(tmp)) fs.unlinkSync(tmp);
fs.writeFileSync(tmp, JSON.stringify(data, null, 2) + "\n", { mode: 0o600, flag: "wx" });
if (process.env.RELAYDECK_PRIVATE !== "1" && fs.existsSync(path)) fs.chmodSync(tmp, fs.statSync(path).mode & 0o7777);
fs.renameSync(tmp, path);
JS_EOF
        ;;
    *)
        warn "neither python3 nor node is installed: cannot edit $2"
        return 1
        ;;
    esac
}

# A file that will hold the key: edited with RELAYDECK_PRIVATE=1, and the user is told when
# that took read access away from others (ls -l's mode column: the same on Linux and macOS).
private_edit() {
    was_open=""
    if [ -e "$2" ]; then
        case $(ls -ld "$2") in -rw-------*) ;; *) was_open=yes ;; esac
    fi
    RELAYDECK_PRIVATE=1 json_edit "$@" || return 1
    [ -z "$was_open" ] || say "$made $2 readable by you only (mode 0600): it now holds the API key."
}

# In the values given to json_edit the key is @RELAYDECK_KEY@: the editor takes it from its
# environment, which other users cannot read, unlike its command line.
# In a dry run what the editors say names the scratch copies: it goes through unscratch.
through_unscratch() {
    if [ -n "${scratch:-}" ]; then
        status=0
        "$@" >"$scratch/said" 2>&1 || status=$?
        unscratch <"$scratch/said"
        return $status
    fi
    "$@"
}
json_edit() { through_unscratch json_edit_run "$@"; }
codex_toml_edit() { through_unscratch codex_toml_edit_run "$@"; }

auth="Bearer @RELAYDECK_KEY@"
RELAYDECK_KEY=$key
export RELAYDECK_KEY
configured=""
failed=""
note_ok() { configured="$configured $1"; }
note_failed() { failed="$failed $1"; }

# The agents run hook commands with a shell: a path in one is quoted for sh (a home folder may
# have spaces or quotes), and the command then escaped as a JSON string.
sh_quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
json_text() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
hook_command() { json_text "$(sh_quote "$HOOK") $1"; }
# A hook entry in the nested form of Claude Code and Gemini CLI.
nested_hook() { printf '{"matcher":"*","hooks":[{"type":"command","command":"%s"}]}' "$(hook_command "$1")"; }
# Gemini CLI and Codex take the same form without the matcher (optional there; Gemini CLI
# compares it exactly for lifecycle events, Codex reads it as a regular expression).
plain_hook() { printf '{"hooks":[{"type":"command","command":"%s"}]}' "$(hook_command "$1")"; }

# --- Claude Code -----------------------------------------------------------------------------
if command -v claude >/dev/null 2>&1 || [ -d "$HOME/.claude" ] || [ -f "$HOME/.claude.json" ]; then
    ok=yes
    record "$HOME/.claude" claude-dir && record "$HOME/.claude.json" claude.json &&
        record "$HOME/.claude/settings.json" claude-settings.json || die "cannot write in $BEFORE_DIR"
    # The header comes from the headers program (headersHelper), so the key is neither in
    # ~/.claude.json nor on claude's command line.
    entry="{\"type\":\"http\",\"url\":\"$MCP_URL\",\"headersHelper\":\"$(json_text "$(sh_quote "$HEADERS")")\"}"
    # Both files are read first: one that cannot be edited means nothing of Claude Code is
    # written (a server without its hooks, or hooks without the server, would be half a set-up).
    json_edit check "$HOME/.claude/settings.json" && json_edit check "$HOME/.claude.json" || ok=""
    # (A dry run writes ~/.claude.json's copy itself: claude would change the real one.)
    if [ -z "$ok" ]; then
        :
    elif [ -z "$dry_run" ] && command -v claude >/dev/null 2>&1; then
        claude mcp remove --scope user "$NAME" >/dev/null 2>&1 || true
        claude mcp add-json --scope user "$NAME" "$entry" >/dev/null || ok=""
    else
        json_edit set "$HOME/.claude.json" "mcpServers.$NAME" "$entry" || ok=""
    fi
    settings="$HOME/.claude/settings.json"
    [ -z "$ok" ] || {
        mkdir -p "$HOME/.claude" &&
            json_edit hook "$settings" hooks.SessionStart "$(nested_hook 'claude start')" relaydeck/inbox-hook &&
            json_edit hook "$settings" hooks.UserPromptSubmit "$(nested_hook 'claude prompt')" relaydeck/inbox-hook &&
            json_edit hook "$settings" hooks.Stop "$(nested_hook 'claude stop')" relaydeck/inbox-hook
    } || ok=""
    if [ -n "$ok" ]; then note_ok "Claude Code"; else note_failed "Claude Code"; fi
fi

# --- Codex -----------------------------------------------------------------------------------
# [mcp_servers.relaydeck] with bearer_token_env_var: config.toml names the variable, and the key
# goes into ~/.codex/.env, the environment file Codex loads when it starts (mode 0600). The old
# entry is dropped wherever it is (its table, an inline table under [mcp_servers], dotted keys),
# and the result must parse as TOML and equal the file as it was but for that entry; anything
# else (python3 without tomllib, a file it cannot read) is refused and nothing is written.
codex_toml_edit_run() {
    command -v python3 >/dev/null 2>&1 && python3 -c 'import tomllib' 2>/dev/null || {
        if [ -s "$1" ]; then
            warn "python3 3.11 or later (with tomllib) is needed to edit $1 safely; left unchanged"
            return 1
        fi
        umask 077
        printf '[features]\ncodex_hooks = true\n\n[mcp_servers.%s]\nurl = "%s"\nbearer_token_env_var = "RELAYDECK_API_KEY"\n' \
            "$NAME" "$MCP_URL" >"$1.relaydeck-tmp"
        return 0
    }
    python3 - "$1" "$NAME" "$MCP_URL" <<'PY_EOF'
import os, re, sys, tomllib
path, name, url = sys.argv[1:4]
text = ""
if os.path.exists(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
def refuse(why):
    sys.exit(f"{path}: {why}; left unchanged (add [mcp_servers.{name}] with url = \"{url}\" and "
             f"bearer_token_env_var = \"RELAYDECK_API_KEY\" by hand)")
try:
    before = tomllib.loads(text)
except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
    refuse(f"not valid TOML ({error})")
ours = rf"""(?:{re.escape(name)}|"{re.escape(name)}"|'{re.escape(name)}')"""
kept, table, skip, features_at = [], "", False, None
for line in text.splitlines(keepends=True):
    header = re.match(r"\s*\[\[?\s*([^\]]*?)\s*\]", line)
    if header:
        table = re.sub(r"\s*\.\s*", ".", header.group(1)).replace('"', "").replace("'", "")
        skip = table == f"mcp_servers.{name}" or table.startswith(f"mcp_servers.{name}.")
        if table == "features" and not line.lstrip().startswith("[["):
            features_at = len(kept) + 1
    if skip:
        continue
    if table == "mcp_servers" and re.match(rf"\s*{ours}\s*[.=]", line):
        continue
    if table == "" and re.match(rf"\s*mcp_servers\s*\.\s*{ours}\s*[.=]", line):
        continue
    kept.append(line)
# Codex runs the hooks of ~/.codex/hooks.json only with [features] codex_hooks = true; a
# codex_hooks the user set (true or false) is theirs and stays.
features = before.get("features")
hooks_flag = features.get("codex_hooks") if isinstance(features, dict) else None
tail = ""
if hooks_flag is None:
    if features_at is not None:
        kept.insert(features_at, "codex_hooks = true\n")
    else:
        # Before the entry, which is always last: a re-run then writes the same bytes.
        tail = "[features]\ncodex_hooks = true\n\n"
elif hooks_flag is not True:
    print(f"Codex hooks are off in {path} (features.codex_hooks = {hooks_flag!r}); left as you set it.")
body = "".join(kept).rstrip()
entry = f'[mcp_servers.{name}]\nurl = "{url}"\nbearer_token_env_var = "RELAYDECK_API_KEY"\n'
result = (body + "\n\n" if body else "") + tail + entry
try:
    after = tomllib.loads(result)
except tomllib.TOMLDecodeError as error:
    refuse(f"cannot be edited safely (the result would not parse: {error})")
def without_ours(data):
    servers = dict(data.get("mcp_servers", {}))
    servers.pop(name, None)
    rest = {k: v for k, v in data.items() if k != "mcp_servers"}
    if hooks_flag is None and isinstance(rest.get("features"), dict):
        rest["features"] = {k: v for k, v in rest["features"].items() if k != "codex_hooks"}
        if not rest["features"] and "features" not in before:
            del rest["features"]
    return rest, servers
wanted_flag = True if hooks_flag is None else hooks_flag
if after["mcp_servers"][name] != {"url": url, "bearer_token_env_var": "RELAYDECK_API_KEY"} or \
        after.get("features", {}).get("codex_hooks") != wanted_flag or without_ours(after) != without_ours(before):
    refuse("cannot be edited safely (the edit would change more than the relaydeck entry)")
tmp = path + ".relaydeck-tmp"
if os.path.exists(tmp):
    os.remove(tmp)
with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as f:
    f.write(result)
if os.path.exists(path):
    os.chmod(tmp, os.stat(path).st_mode & 0o7777)
PY_EOF
}

# ~/.codex/.env: its RELAYDECK_API_KEY line replaced, the other lines kept; mode 0600.
codex_env_write() {
    was_open=""
    if [ -e "$1" ]; then
        case $(ls -ld "$1") in -rw-------*) ;; *) was_open=yes ;; esac
        grep -v '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}RELAYDECK_API_KEY=' "$1" >"$1.relaydeck-tmp" || :
    else
        : >"$1.relaydeck-tmp"
    fi
    chmod 0600 "$1.relaydeck-tmp" &&
        printf 'RELAYDECK_API_KEY=%s\n' "$key" >>"$1.relaydeck-tmp" &&
        mv "$1.relaydeck-tmp" "$1" || return 1
    [ -z "$was_open" ] || say "$made $1 readable by you only (mode 0600): it now holds the API key."
}

if command -v codex >/dev/null 2>&1 || [ -d "$HOME/.codex" ]; then
    record "$HOME/.codex" codex-dir && record "$HOME/.codex/config.toml" codex-config.toml &&
        record "$HOME/.codex/.env" codex-env && record "$HOME/.codex/hooks.json" codex-hooks.json ||
        die "cannot write in $BEFORE_DIR"
    mkdir -p "$HOME/.codex"
    toml="$HOME/.codex/config.toml"
    codex_hooks="$HOME/.codex/hooks.json"
    # Codex's hooks.json has the nested form of Claude Code's, without a matcher (Codex reads it
    # as a regular expression, and matches every event without one). Checked before anything is
    # renamed into place, so a hooks.json it cannot edit leaves config.toml as it was too.
    if codex_toml_edit "$toml" &&
        json_edit hook "$codex_hooks" hooks.SessionStart "$(plain_hook 'codex start')" relaydeck/inbox-hook &&
        json_edit hook "$codex_hooks" hooks.UserPromptSubmit "$(plain_hook 'codex prompt')" relaydeck/inbox-hook &&
        json_edit hook "$codex_hooks" hooks.Stop "$(plain_hook 'codex stop')" relaydeck/inbox-hook &&
        codex_env_write "$HOME/.codex/.env" && mv "$toml.relaydeck-tmp" "$toml"; then
        note_ok "Codex"
        codex_note="Codex reads the key from RELAYDECK_API_KEY, set in $HOME/.codex/.env (loaded when Codex starts). Its hooks are in $codex_hooks: in Codex, type /hooks and trust them."
    else
        rm -f "$toml.relaydeck-tmp"
        note_failed "Codex"
    fi
fi

# --- Cursor ----------------------------------------------------------------------------------
if command -v cursor >/dev/null 2>&1 || command -v cursor-agent >/dev/null 2>&1 || [ -d "$HOME/.cursor" ]; then
    record "$HOME/.cursor" cursor-dir && record "$HOME/.cursor/mcp.json" cursor-mcp.json &&
        record "$HOME/.cursor/hooks.json" cursor-hooks.json || die "cannot write in $BEFORE_DIR"
    mkdir -p "$HOME/.cursor"
    ok=""
    hooks="$HOME/.cursor/hooks.json"
    # The hooks only once the server is set: hooks without it would hand over items the agent
    # cannot answer. And hooks.json is read first: the server without its hooks is half a set-up.
    json_edit check "$hooks" &&
        private_edit set "$HOME/.cursor/mcp.json" "mcpServers.$NAME" \
        "{\"url\":\"$MCP_URL\",\"headers\":{\"Authorization\":\"$auth\"}}" &&
        json_edit set "$hooks" version 1 &&
        json_edit hook "$hooks" hooks.sessionStart "{\"command\":\"$(hook_command 'cursor start')\"}" relaydeck/inbox-hook &&
        json_edit hook "$hooks" hooks.stop "{\"command\":\"$(hook_command 'cursor stop')\"}" relaydeck/inbox-hook &&
        ok=yes
    if [ -n "$ok" ]; then note_ok "Cursor"; else note_failed "Cursor"; fi
fi

# --- Gemini CLI ------------------------------------------------------------------------------
if command -v gemini >/dev/null 2>&1 || [ -d "$HOME/.gemini" ]; then
    record "$HOME/.gemini" gemini-dir && record "$HOME/.gemini/settings.json" gemini-settings.json ||
        die "cannot write in $BEFORE_DIR"
    mkdir -p "$HOME/.gemini"
    settings="$HOME/.gemini/settings.json"
    ok=yes
    # Gemini CLI's loader accepts comments in settings.json: so does the edit.
    # Its hooks run only while hooksConfig.enabled is true, "the canonical toggle for the hooks
    # system" (its docs/reference/configuration.md). That is the default from 0.26 on, but not in
    # 0.26.0-preview.0; earlier versions gated hooks on tools.enableHooks (up to 0.23) and on
    # hooks.enabled (0.24 and 0.25), which 0.26 and later no longer read (and refuse a boolean
    # hooks.enabled). So hooksConfig.enabled is set when it is absent; a value the user set
    # stays, and the script says so.
    RELAYDECK_JSONC=1
    export RELAYDECK_JSONC
    private_edit set "$settings" "mcpServers.$NAME" \
        "{\"httpUrl\":\"$MCP_URL\",\"headers\":{\"Authorization\":\"$auth\"}}" &&
        json_edit hook "$settings" hooks.SessionStart "$(plain_hook 'gemini start')" relaydeck/inbox-hook &&
        json_edit hook "$settings" hooks.BeforeAgent "$(plain_hook 'gemini prompt')" relaydeck/inbox-hook &&
        json_edit hook "$settings" hooks.AfterAgent "$(plain_hook 'gemini stop')" relaydeck/inbox-hook &&
        json_edit default "$settings" hooksConfig.enabled true || ok=""
    unset RELAYDECK_JSONC
    if [ -n "$ok" ]; then
        note_ok "Gemini CLI"
        gemini_note="Gemini CLI runs these hooks from version 0.26 on (hooksConfig.enabled in $settings); gemini --version says which you have."
    else
        note_failed "Gemini CLI"
    fi
fi

if [ -n "$dry_run" ]; then
    show_changes
    say "Dry run: nothing was written. Without --dry-run, the changes above are made."
    [ -z "$failed" ] || { warn "could not configure$failed (see above)"; exit 1; }
    exit 0
fi
if [ -z "$configured" ] && [ -z "$failed" ]; then
    say "No agent found (looked for Claude Code, Codex, Cursor and Gemini CLI)."
    say "Add the MCP server by hand: $MCP_URL with the header \"Authorization: Bearer <your key>\"."
    say "See $SERVER/docs/agents."
    exit 1
fi
[ -z "$configured" ] || say "Configured for$configured: MCP server \"$NAME\" at $MCP_URL."
say "Inbox hooks: $HOOK (key in $KEY_FILE)."
[ -z "${codex_note:-}" ] || say "$codex_note"
[ -z "${gemini_note:-}" ] || say "$gemini_note"
say "Restart the agents to load the change."
if [ -n "$failed" ]; then
    warn "could not configure$failed (see above)"
    exit 1
fi
exit 0
