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
        <code>plan_work</code> and <code>status_report</code> are there too. A key sees only the tools its
        scopes allow (the person chooses them in the web console), and a call of another one answers
        which scope it lacks. A failed tool call answers with
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
        <tr><td><code>GET, POST /v1/keys</code></td><td>account</td><td>Lists the API keys, or makes one with its scopes (its secret is returned once).</td></tr>
        <tr><td><code>PATCH, DELETE /v1/keys/{key_id}</code></td><td>account</td><td>Renames a key or changes its scopes, or deletes it.</td></tr>
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
        <p>“both” means an account token or an API key; a key sees only its own tasks and questions,
        and uses only the routes its scopes allow (<code>tasks:read</code>, <code>tasks:write</code>,
        <code>questions</code>, <code>notify</code>, <code>messages</code>, <code>inbox</code>; every
        scope unless the person chose fewer): another is <code>403 insufficient_scope</code>.
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
        <tr><td><code>DATABASE_PATH</code>, <code>DURABILITY</code></td><td>The SQLite file, and whether each commit also survives a power cut (<code>full</code>).</td></tr>
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
