// Ready-made MCP settings for a new key (quickstart.md): the server's own origin with /mcp,
// and the key in the Authorization header.

export function mcpURL() {
  return `${location.origin}/mcp`;
}

export function mcpSettings(secret) {
  const url = mcpURL();
  const json = (value) => JSON.stringify(value, null, 2);
  return [
    {
      id: "claude",
      name: "Claude Code",
      where: "Run in a terminal:",
      text: `claude mcp add --transport http relaydeck ${url} --header "Authorization: Bearer ${secret}"`,
    },
    {
      id: "codex",
      name: "Codex",
      where: "Add to ~/.codex/config.toml, then set the variable in your shell:",
      text: `[mcp_servers.relaydeck]\nurl = "${url}"\nbearer_token_env_var = "TASKS_API_KEY"\n\n# in your shell profile:\nexport TASKS_API_KEY=${secret}`,
    },
    {
      id: "cursor",
      name: "Cursor",
      where: "Add to ~/.cursor/mcp.json:",
      text: json({ mcpServers: { relaydeck: { url, headers: { Authorization: `Bearer ${secret}` } } } }),
    },
    {
      id: "gemini",
      name: "Gemini CLI",
      where: "Add to ~/.gemini/settings.json:",
      text: json({ mcpServers: { relaydeck: { httpUrl: url, headers: { Authorization: `Bearer ${secret}` } } } }),
    },
  ];
}
