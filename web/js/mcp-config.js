// Ready-made MCP settings for a new key: the install script, and per agent what the script
// writes, for setting it up by hand. None of them puts the key on a command line (where every
// user of the machine sees it in the process list, and it stays in the shell's history): the
// key goes into a file readable by its owner only, pasted there from the clipboard.

export function mcpURL() {
  return `${location.origin}/mcp`;
}

export function mcpSettings(secret) {
  const url = mcpURL();
  const json = (value) => JSON.stringify(value, null, 2);
  const headers = { Authorization: `Bearer ${secret}` };
  return [
    {
      id: "script",
      name: "Install script",
      where: "Sets up every agent it finds on the machine (Claude Code, Codex, Cursor, Gemini CLI) and their inbox hooks. Run in a terminal, and paste the key when it asks:",
      text: `curl -fsSL ${location.origin}/install | sh`,
    },
    {
      id: "claude",
      name: "Claude Code",
      where: "By hand, in a terminal: the key in a file only you can read (paste it, then press Ctrl-D), a program that prints the header from it, and the server with that program as its headersHelper:",
      text: [
        "mkdir -p ~/.config/relaydeck && (umask 077 && cat > ~/.config/relaydeck/api-key)",
        "cat > ~/.config/relaydeck/mcp-headers <<'EOF'",
        "#!/bin/sh",
        `printf '{"Authorization":"Bearer %s"}\\n' "$(cat ~/.config/relaydeck/api-key)"`,
        "EOF",
        "chmod 755 ~/.config/relaydeck/mcp-headers",
        `claude mcp add-json --scope user relaydeck '${JSON.stringify({ type: "http", url, headersHelper: "~/.config/relaydeck/mcp-headers" })}'`,
      ].join("\n"),
    },
    {
      id: "codex",
      name: "Codex",
      where: "By hand: add to ~/.codex/config.toml, and put the key in ~/.codex/.env (which Codex loads when it starts; chmod 600 ~/.codex/.env):",
      text: `[mcp_servers.relaydeck]\nurl = "${url}"\nbearer_token_env_var = "RELAYDECK_API_KEY"\n\n# ~/.codex/.env\nRELAYDECK_API_KEY=${secret}`,
    },
    {
      id: "cursor",
      name: "Cursor",
      where: "By hand: add to ~/.cursor/mcp.json, and keep the file readable by you only (chmod 600 ~/.cursor/mcp.json):",
      text: json({ mcpServers: { relaydeck: { url, headers } } }),
    },
    {
      id: "gemini",
      name: "Gemini CLI",
      where: "By hand: add to ~/.gemini/settings.json, and keep the file readable by you only (chmod 600 ~/.gemini/settings.json):",
      text: json({ mcpServers: { relaydeck: { httpUrl: url, headers } } }),
    },
  ];
}
