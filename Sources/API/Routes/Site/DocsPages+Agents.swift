extension DocsPages {
    /// `/docs/agents`: the install script, then per agent what the script writes and how to
    /// write the same by hand (issue 22). No example puts a key on a command line, where every
    /// user of the machine sees it in the process list and the shell keeps it in its history.
    static let agents = DocsPage(title: "Connect an agent") { url in
        """
        <p>First make an API key in the Relaydeck app, one for each agent, and copy it (it starts
        with <code>mck_</code>).</p>
        <h2>With the install script</h2>
        <pre>curl -fsSL \(url)/install | sh</pre>
        <p>The script asks for the key, checks it with this server and keeps it in
        <code>~/.config/relaydeck/api-key</code> (readable by you only, mode 0600). Then it sets up
        every agent it finds on the machine with an MCP server named <code>relaydeck</code> and the
        inbox hooks, as listed below. It also writes two small programs beside the key:
        <code>inbox-hook</code>, which the hooks run (when a session starts, when you send a prompt
        and when the agent is about to stop it reads the agent's inbox, giving up after 2 seconds,
        and hands the new items to the agent), and <code>mcp-headers</code>, which prints the
        <code>Authorization</code> header from the key file. The key never goes on a command line,
        and a file that holds it is made readable by you only, which the script tells you when it
        changes a file's mode. Running it again replaces its own entries and keeps everything else.
        A file it cannot change safely (not valid JSON or TOML) is left as it is, nothing of that
        agent is written, and the script ends with an error. For a machine without a terminal,
        give the key in the environment, not on a command line:
        <code>RELAYDECK_API_KEY="$(cat key-file)" sh</code> in place of <code>sh</code>. To see
        first what it would change, file by file, without writing anything:
        <code>sh -s -- --dry-run</code> in place of <code>sh</code>. To undo it, run the script with
        <code>--uninstall</code>: it removes its entries and files, and gives back each file you
        have not changed since exactly as it was.</p>
        <pre>curl -fsSL \(url)/install | sh -s -- --uninstall</pre>
        <p>By hand, the transport is Streamable HTTP at <code>\(url)/mcp</code>, and the key goes in
        the <code>Authorization: Bearer</code> header. Keep each file that holds the key readable by
        you only (<code>chmod 600</code>). The hooks need the script's <code>inbox-hook</code>
        program (its source is in the script); the MCP server alone works without them. Below,
        <code>/home/you</code> stands for your home folder.</p>

        <h2>Claude Code</h2>
        <p>The script writes the server with <code>claude mcp add-json --scope user</code> (or into
        <code>~/.claude.json</code> when <code>claude</code> is not installed); its header comes from
        <code>mcp-headers</code>, so neither that file nor the command line holds the key:</p>
        <pre>{"mcpServers": {"relaydeck": {"type": "http", "url": "\(url)/mcp",
          "headersHelper": "'/home/you/.config/relaydeck/mcp-headers'"}}}</pre>
        <p>and the hooks in <code>~/.claude/settings.json</code>, one entry each under
        <code>SessionStart</code>, <code>UserPromptSubmit</code> (<code>prompt</code>) and
        <code>Stop</code> (<code>stop</code>):</p>
        <pre>{"hooks": {"SessionStart": [{"matcher": "*", "hooks": [{"type": "command",
          "command": "'/home/you/.config/relaydeck/inbox-hook' claude start"}]}], ...}}</pre>
        <p>By hand, in a terminal: the key in a file only you can read (paste it, then press
        Ctrl-D), a program that prints the header from it, and the server with that program as its
        <code>headersHelper</code>:</p>
        <pre>mkdir -p ~/.config/relaydeck &amp;&amp; (umask 077 &amp;&amp; cat &gt; ~/.config/relaydeck/api-key)
        cat &gt; ~/.config/relaydeck/mcp-headers &lt;&lt;'EOF'
        #!/bin/sh
        printf '{"Authorization":"Bearer %s"}\\n' "$(cat ~/.config/relaydeck/api-key)"
        EOF
        chmod 755 ~/.config/relaydeck/mcp-headers
        claude mcp add-json --scope user relaydeck '{"type":"http","url":"\(url)/mcp","headersHelper":"~/.config/relaydeck/mcp-headers"}'</pre>

        <h2>Codex</h2>
        <p>The script writes <code>~/.codex/config.toml</code> (the key is not in it: Codex reads it
        from the variable that <code>bearer_token_env_var</code> names; <code>codex_hooks</code> is
        added only when you have not set it):</p>
        <pre>[features]
        codex_hooks = true

        [mcp_servers.relaydeck]
        url = "\(url)/mcp"
        bearer_token_env_var = "RELAYDECK_API_KEY"</pre>
        <p>the key in <code>~/.codex/.env</code> (mode 0600), which Codex loads when it starts:</p>
        <pre>RELAYDECK_API_KEY=mck_...</pre>
        <p>and the hooks in <code>~/.codex/hooks.json</code>, under <code>SessionStart</code>,
        <code>UserPromptSubmit</code> and <code>Stop</code>, without a matcher (type
        <code>/hooks</code> in Codex once to trust them):</p>
        <pre>{"hooks": {"SessionStart": [{"hooks": [{"type": "command",
          "command": "'/home/you/.config/relaydeck/inbox-hook' codex start"}]}], ...}}</pre>
        <p>By hand: the same <code>[mcp_servers.relaydeck]</code> table, and the
        <code>RELAYDECK_API_KEY=mck_...</code> line in <code>~/.codex/.env</code> written with an
        editor (<code>chmod 600 ~/.codex/.env</code>).</p>

        <h2>Cursor</h2>
        <p>The script writes the server in <code>~/.cursor/mcp.json</code> (mode 0600: it holds the
        key):</p>
        <pre>{"mcpServers": {"relaydeck": {"url": "\(url)/mcp",
          "headers": {"Authorization": "Bearer mck_..."}}}}</pre>
        <p>and the hooks in <code>~/.cursor/hooks.json</code>, under <code>sessionStart</code> and
        <code>stop</code>. Cursor also runs the hooks of <code>~/.claude/settings.json</code>; there
        the script's Claude Code entry leaves the inbox to Cursor's own, so no item comes twice.</p>
        <pre>{"version": 1, "hooks": {"sessionStart": [{"command":
          "'/home/you/.config/relaydeck/inbox-hook' cursor start"}], "stop": [...]}}</pre>
        <p>By hand: the same <code>mcpServers</code> entry, written with an editor, then
        <code>chmod 600 ~/.cursor/mcp.json</code>. Other clients that read a JSON file take the
        same entry.</p>

        <h2>Gemini CLI</h2>
        <p>The script writes <code>~/.gemini/settings.json</code> (mode 0600; a file with comments is
        read as Gemini CLI reads it, and kept beside as
        <code>settings.json.before-relaydeck</code>, since the rewrite cannot keep them): the
        server with <code>httpUrl</code>, the hooks under <code>SessionStart</code>,
        <code>BeforeAgent</code> (<code>prompt</code>) and <code>AfterAgent</code>
        (<code>stop</code>), and <code>hooksConfig.enabled</code>, without which Gemini CLI runs no
        hook (on by default from version 0.26; a value you set is kept):</p>
        <pre>{"mcpServers": {"relaydeck": {"httpUrl": "\(url)/mcp",
          "headers": {"Authorization": "Bearer mck_..."}}},
         "hooks": {"SessionStart": [{"hooks": [{"type": "command",
          "command": "'/home/you/.config/relaydeck/inbox-hook' gemini start"}]}], ...},
         "hooksConfig": {"enabled": true}}</pre>
        <p>By hand: the same <code>mcpServers</code> entry, written with an editor, then
        <code>chmod 600 ~/.gemini/settings.json</code>.</p>

        <h2>Other clients</h2>
        <p>A client that cannot send headers may put the key in the address,
        <code>\(url)/mcp?key=mck_...</code>, but addresses end up in logs: prefer the header. An agent
        may also send <code>X-Relaydeck-Host</code> with a short name of its machine, which the app shows.</p>
        """
    }
}
