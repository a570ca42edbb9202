/// `GET /docs` and `GET /docs/{page}`: this server's own reference, short and in one place:
/// what each route, tool and setting does here. The contract pages say the same rules in
/// more detail; these pages are for the person running or connecting to this server.
struct DocsPage: Sendable {
    let title: String
    /// The page's HTML, given the server's address (HTML-escaped already).
    let content: @Sendable (String) -> String

    func html(_ origin: SiteOrigin) -> String {
        "<h1>\(SitePage.escape(title))</h1>\n" + content(SitePage.escape(origin.url))
    }
}

enum DocsPages {
    static func page(named name: String) -> DocsPage? {
        switch name {
        case "": index
        case "api": api
        case "mcp": mcp
        case "settings": settings
        case "agents": agents
        default: nil
        }
    }

    static let index = DocsPage(title: "Reference") { url in
        """
        <p>This server keeps the tasks, questions and messages of AI coding agents for one or more
        people, and hands them to the Relaydeck app. Everything is in one SQLite file; every
        setting comes from the environment.</p>
        <ul>
        <li><a href="/docs/agents">Connect an agent</a>: the install script, or the MCP settings by hand.</li>
        <li><a href="/docs/mcp">MCP tools</a>: what an agent can do at <code>\(url)/mcp</code>.</li>
        <li><a href="/docs/api">REST API</a>: the routes the app and scripts use.</li>
        <li><a href="/docs/settings">Settings</a>: the environment variables of <code>relaydeckd</code>.</li>
        </ul>
        <h2>Credentials</h2>
        <p>An <b>account token</b> (<code>mca_...</code>) belongs to the person and the app; it manages
        keys, devices and answers. An <b>API key</b> (<code>mck_...</code>) belongs to one agent; it
        makes and updates that agent's tasks, asks questions and reads its inbox. Both are sent as
        <code>Authorization: Bearer ...</code> (a key also as <code>X-API-Key</code>). The server stores
        only their SHA-256 hashes and shows a secret once, when it is made.</p>
        <h2>Errors</h2>
        <p>Every refusal is JSON: <code>{"error": {"code": "...", "message": "..."}}</code> with a
        status that says what went wrong: <code>401</code> a missing or unknown credential,
        <code>403</code> the wrong kind of credential, <code>404</code> nothing there (or not yours),
        <code>409</code> a limit or a state that does not allow it, <code>422</code> invalid fields
        (listed in <code>error.fields</code>), <code>429</code> too many requests (see
        <code>Retry-After</code>), <code>503</code> the store is away for a moment.</p>
        """
    }

    static let agents = DocsPage(title: "Connect an agent") { url in
        """
        <p>First make an API key in the Relaydeck app, one for each agent, and copy it (it starts
        with <code>mck_</code>).</p>
        <h2>With the install script</h2>
        <pre>curl -fsSL \(url)/install | sh</pre>
        <p>The script checks the key with this server, keeps it in
        <code>~/.config/relaydeck/api-key</code> (readable by you only), then sets up every agent it
        finds on the machine with an MCP server named <code>relaydeck</code>: Claude Code
        (<code>claude mcp add-json</code>, or <code>~/.claude.json</code>, with a
        <code>headersHelper</code> that reads the key file), Codex (<code>~/.codex/config.toml</code>
        with <code>bearer_token_env_var</code>, the key in <code>~/.codex/.env</code>), Cursor
        (<code>~/.cursor/mcp.json</code>) and Gemini CLI (<code>~/.gemini/settings.json</code>,
        comments allowed). The key never goes on a command line, and a file that holds it is made
        readable by you only (mode 0600), which the script tells you when it changes a file's mode.
        It also installs a small hook program in <code>~/.config/relaydeck/</code> and registers it
        with Claude Code, Codex (<code>~/.codex/hooks.json</code>, with <code>codex_hooks = true</code>
        under <code>[features]</code>; type <code>/hooks</code> in Codex once to trust them), Cursor
        and Gemini CLI: when a session starts, when you send a prompt and when the agent is about to
        stop, the hook reads the agent's inbox (giving up after 2 seconds) and gives the new items
        to the agent. Running it again replaces its own entries and keeps everything else. A file it
        cannot change safely (not valid JSON or TOML) is left as it is, nothing of that agent is
        written, and the script ends with an error. For a machine without a terminal, pass the key
        with <code>RELAYDECK_API_KEY=mck_...</code> or <code>--key mck_...</code>. To undo it, run the
        script with <code>--uninstall</code>: it removes its entries and files, and gives back each
        file you have not changed since exactly as it was.</p>
        <pre>curl -fsSL \(url)/install | sh -s -- --uninstall</pre>
        <p>To see first what it would change, file by file, without writing anything:
        <code>sh -s -- --dry-run</code> in place of <code>sh</code>.</p>
        <h2>By hand</h2>
        <p>The transport is Streamable HTTP at <code>\(url)/mcp</code>; the key goes in the
        <code>Authorization: Bearer</code> header. Keep each file that holds the key readable by
        you only (<code>chmod 600</code>).</p>
        <p>Claude Code, in <code>~/.claude.json</code> (or with <code>claude mcp add-json --scope user
        relaydeck '...'</code>), with a program that prints <code>{"Authorization": "Bearer
        mck_..."}</code>:</p>
        <pre>{"mcpServers": {"relaydeck": {"type": "http", "url": "\(url)/mcp",
          "headersHelper": "~/.config/relaydeck/mcp-headers"}}}</pre>
        <p>Codex, in <code>~/.codex/config.toml</code>, and <code>RELAYDECK_API_KEY=mck_...</code> in
        <code>~/.codex/.env</code> (or in the shell that starts Codex):</p>
        <pre>[mcp_servers.relaydeck]
        url = "\(url)/mcp"
        bearer_token_env_var = "RELAYDECK_API_KEY"</pre>
        <p>Cursor (<code>~/.cursor/mcp.json</code>) and other clients that read a JSON file; Gemini
        CLI takes the same in <code>~/.gemini/settings.json</code> with <code>httpUrl</code> in place
        of <code>url</code>:</p>
        <pre>{"mcpServers": {"relaydeck": {"url": "\(url)/mcp",
          "headers": {"Authorization": "Bearer mck_..."}}}}</pre>
        <p>A client that cannot send headers may put the key in the address,
        <code>\(url)/mcp?key=mck_...</code>, but addresses end up in logs: prefer the header. An agent
        may also send <code>X-Relaydeck-Host</code> with a short name of its machine, which the app shows.</p>
        """
    }

    static let mcp = DocsPage(title: "MCP tools") { url in
        """
        <p><code>POST \(url)/mcp</code> speaks JSON-RPC over Streamable HTTP, without sessions:
        each request carries the API key. It accepts the protocol revisions 2026-07-28 (stateless,
        with <code>server/discover</code>), 2025-11-25, 2025-06-18 and 2025-03-26. Each call is one
        entry in the key's activity log, which the app shows.</p>
        <table>
        <tr><th>Tool</th><th>What it does</th></tr>
        <tr><td><code>create_task</code></td><td>Makes a task for the person to see: a title, and optionally a description, priority and status.</td></tr>
        <tr><td><code>list_tasks</code></td><td>Lists this key's tasks, filtered by status or priority, a page at a time.</td></tr>
        <tr><td><code>get_task</code></td><td>Reads one task.</td></tr>
        <tr><td><code>update_task</code></td><td>Changes a task: its status, progress (0 to 100), a short status note, title, description or priority.</td></tr>
        <tr><td><code>delete_task</code></td><td>Deletes a task.</td></tr>
        <tr><td><code>notify_user</code></td><td>Sends a push notification to the person's devices (30 an hour per key); needs push to be on.</td></tr>
        <tr><td><code>ask_user</code></td><td>Asks a question (yes or no, a choice of 2 to 4 options, or free text) and waits up to 50 seconds for the answer.</td></tr>
        <tr><td><code>get_answer</code></td><td>Waits for the answer to an earlier question.</td></tr>
        <tr><td><code>check_inbox</code></td><td>Reads the unread items of the key's inbox: tasks the person assigned or changed, answers, messages.</td></tr>
        <tr><td><code>send_message</code></td><td>Sends a short message to another agent of the same account, by key ID or label.</td></tr>
        <tr><td><code>list_agents</code></td><td>Lists the other agents (keys) of the account.</td></tr>
        </table>
        <p>The resources <code>tasks://open</code> and <code>tasks://task/{task_id}</code> and the prompts
        <code>plan_work</code> and <code>status_report</code> are there too. A failed tool call answers with
        <code>isError</code> and a message that says how to correct the call. While the inbox holds unread
        items, each result ends with a line that says so.</p>
        """
    }

    static let api = DocsPage(title: "REST API") { url in
        """
        <p>JSON over HTTP at <code>\(url)</code>. Bodies are JSON objects (at most 1 MiB); unknown fields are
        refused. Times are seconds since 1970 with milliseconds. <code>HEAD</code> works wherever
        <code>GET</code> does.</p>
        <table>
        <tr><th>Route</th><th>Who</th><th>What</th></tr>
        <tr><td><code>GET /health</code></td><td>anyone</td><td>Whether the server and its store answer.</td></tr>
        <tr><td><code>POST /v1/attest/challenge</code></td><td>anyone</td><td>A one-time challenge for App Attest.</td></tr>
        <tr><td><code>POST /v1/accounts</code></td><td>anyone</td><td>Makes an account and returns its token once.</td></tr>
        <tr><td><code>GET, PATCH, DELETE /v1/account</code></td><td>account</td><td>Reads, changes the settings of, or deletes the account.</td></tr>
        <tr><td><code>GET, POST /v1/keys</code></td><td>account</td><td>Lists the API keys, or makes one (its secret is returned once).</td></tr>
        <tr><td><code>PATCH, DELETE /v1/keys/{key_id}</code></td><td>account</td><td>Renames or deletes a key.</td></tr>
        <tr><td><code>GET /v1/keys/{key_id}/activity</code></td><td>account</td><td>The key's recent requests.</td></tr>
        <tr><td><code>GET /v1/keys/{key_id}/inbox</code></td><td>account</td><td>What waits in a key's inbox.</td></tr>
        <tr><td><code>PUT, DELETE /v1/devices/{device_id}</code></td><td>account</td><td>Registers or removes a device and its push tokens.</td></tr>
        <tr><td><code>GET, POST /v1/tasks</code></td><td>both</td><td>Lists or makes tasks.</td></tr>
        <tr><td><code>GET, PATCH, DELETE /v1/tasks/{task_id}</code></td><td>both</td><td>Reads, changes or deletes a task.</td></tr>
        <tr><td><code>PUT, DELETE /v1/tasks/{task_id}/live-activity</code></td><td>account</td><td>Registers a Live Activity for a task.</td></tr>
        <tr><td><code>GET, POST /v1/questions</code></td><td>both / key</td><td>Lists questions, or asks one.</td></tr>
        <tr><td><code>GET, DELETE /v1/questions/{question_id}</code></td><td>both / key</td><td>Reads (optionally waiting for the answer) or cancels a question.</td></tr>
        <tr><td><code>POST /v1/questions/{question_id}/answer</code></td><td>account</td><td>Answers a question.</td></tr>
        <tr><td><code>GET /v1/inbox</code></td><td>key</td><td>The unread items of the key's inbox, optionally waiting for one.</td></tr>
        <tr><td><code>POST /v1/messages</code></td><td>both</td><td>Sends a message to a key's inbox.</td></tr>
        <tr><td><code>GET /v1/agents</code></td><td>key</td><td>The keys of the account.</td></tr>
        <tr><td><code>GET /v1/events</code></td><td>account</td><td>A live stream (server-sent events) of every change of the account.</td></tr>
        <tr><td><code>POST /mcp</code></td><td>key</td><td>The MCP endpoint (see <a href="/docs/mcp">MCP tools</a>).</td></tr>
        </table>
        <p>“both” means an account token or an API key; a key sees only its own tasks and questions.
        Try it: <code>curl -s \(url)/v1/tasks -H "Authorization: Bearer mck_..."</code>.</p>
        """
    }

    static let settings = DocsPage(title: "Settings") { _ in
        """
        <p><code>relaydeckd</code> reads its settings from the environment once, at start; the package
        keeps them in <code>/etc/relaydeck/relaydeck.env</code>, each line commented with its default.
        A bad value stops the start with one line naming the variable; <code>relaydeckd check-config</code>
        runs the same check. Secrets have a <code>_FILE</code> form and can come from systemd credentials.</p>
        <table>
        <tr><th>Variable</th><th>What it sets</th></tr>
        <tr><td><code>LISTEN</code></td><td>The address to listen on when systemd does not pass a socket (default 127.0.0.1:8080).</td></tr>
        <tr><td><code>DATABASE_PATH</code>, <code>DATABASE_SYNCHRONOUS</code></td><td>The SQLite file, and whether each commit also survives a power cut (<code>FULL</code>).</td></tr>
        <tr><td><code>PUBLIC_URL</code></td><td>The address clients use; these pages, the install script and the MCP origin check take it.</td></tr>
        <tr><td><code>TLS_CERT_FILE</code>, <code>TLS_KEY_FILE</code></td><td>Serve HTTPS directly (TLS 1.2 and 1.3); <code>SIGHUP</code> reloads them.</td></tr>
        <tr><td><code>ACCOUNT_CREATION</code>, <code>ACCOUNT_STORAGE_LIMIT</code></td><td>Whether anyone may make an account (<code>open</code>, the default) or only the operator with <code>relaydeckd account create</code> (<code>closed</code>), and how much text each account may keep (256MiB).</td></tr>
        <tr><td><code>RATE_LIMIT_*</code></td><td>Requests per credential per minute, accounts and challenges per client address per hour.</td></tr>
        <tr><td><code>TRUSTED_PROXIES</code></td><td>Reverse proxies whose <code>X-Forwarded-For</code> is believed.</td></tr>
        <tr><td><code>APP_TOTP_SECRET</code></td><td>Turns on app codes: the app proves itself with a code that changes every 30 seconds.</td></tr>
        <tr><td><code>APP_ATTEST_APP_IDS</code>, <code>APP_ATTEST_ENVIRONMENT</code></td><td>Turns on App Attest for new accounts.</td></tr>
        <tr><td><code>APNS_*</code></td><td>Push through Apple's service: team, key ID, the .p8 key, the app's bundle IDs.</td></tr>
        <tr><td><code>LOG_LEVEL</code>, <code>LOG_FORMAT</code></td><td>How much is logged, as text or JSON; no level logs a secret.</td></tr>
        <tr><td><code>MAX_CONNECTIONS</code>, <code>HTTP_*_TIMEOUT</code>, <code>SHUTDOWN_TIMEOUT</code></td><td>Connection limits and timeouts.</td></tr>
        </table>
        <p>The server's own page, <a href="/">the home page</a>, shows which of push, App Attest and app
        codes are on; no page ever shows a setting's value.</p>
        """
    }
}
