// swift-tools-version:6.0
import PackageDescription

// Strict from the first day: Swift 6 language mode (complete concurrency checking),
// and upcoming features that make dependencies and existentials explicit. A nonisolated
// async function runs on its caller's executor (`NonisolatedNonsendingByDefault`): a
// request's task stays on the loop's without a hop that looks up the task's executor
// preference, under a lock, at each call (six of ten such hops a request went).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

// The C libraries link statically (Debian ships the archives), so the release binary
// needs nothing on the target machine but glibc. `-l:name.a` makes GNU ld take the
// archive even where the shared object sits beside it; the module maps carry no `link`
// line for the same reason. Each setting sits on the target that uses the library, so
// test binaries link the same way.
func staticArchives(_ names: String...) -> [LinkerSetting] {
    [.unsafeFlags(names.flatMap { ["-Xlinker", "-l:lib\($0).a"] })]
        + ["dl", "pthread", "m"].map { .linkedLibrary($0) }
}

let package = Package(
    name: "relaydeck-server",
    products: [
        .executable(name: "relaydeckd", targets: ["relaydeckd"]),
    ],
    targets: [
        // C: module maps and shim headers only.
        .target(name: "CLinux"),
        // The WAL writer: a VFS over SQLite's default that writes a commit's WAL frames with
        // one system call (`Sources/CSQLiteVFS/CSQLiteVFS.c`). C, because a VFS is a table of
        // C callbacks; SQLite itself comes with the SQLite target's archive.
        .target(name: "CSQLiteVFS"),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CNGHTTP2", providers: [.apt(["libnghttp2-dev"])]),

        // Layers, lowest first.
        .target(name: "Clock", swiftSettings: strict),
        .target(name: "Logging", dependencies: ["Clock"], swiftSettings: strict),
        .target(name: "EventLoop", dependencies: ["Clock", "CLinux", "Logging"], swiftSettings: strict),
        .target(name: "JSON", swiftSettings: strict),
        .target(name: "SQLite", dependencies: ["CSQLite", "CSQLiteVFS"], swiftSettings: strict, linkerSettings: staticArchives("sqlite3")),
        .target(name: "Crypto", dependencies: ["COpenSSL", "CLinux"], swiftSettings: strict, linkerSettings: staticArchives("ssl", "crypto")),
        // App integrity (`app-integrity.md`): CBOR and App Attest verification, X.509 through
        // OpenSSL; knows nothing of HTTP. OpenSSL's archives come with Crypto.
        .target(name: "AppIntegrity", dependencies: ["COpenSSL", "Crypto", "JSON"], swiftSettings: strict),
        // TLS sessions over non-blocking sockets, client and server side: every OpenSSL
        // call of TLS sits here. OpenSSL's archives come with Crypto's settings.
        .target(name: "TLS", dependencies: ["COpenSSL"], swiftSettings: strict, linkerSettings: staticArchives("ssl", "crypto")),
        // Byte streams over the loop's sockets, shared by the HTTP server and the push
        // clients: the `Transport` protocol, plain and TLS (server and client side), the
        // non-blocking TCP connect and the name lookup off the loop.
        .target(name: "Transports", dependencies: ["EventLoop", "Logging", "TLS"], swiftSettings: strict),
        // The PostgreSQL client (frontend/backend protocol 3.0) on the loop, over the same
        // transports: connection set-up, authentication (SCRAM through Crypto), pipelined
        // batches, LISTEN/NOTIFY. Written here rather than linking libpq: see
        // `docs/architecture.md`, "The PostgreSQL client".
        .target(name: "Postgres", dependencies: ["Crypto", "EventLoop", "Logging", "TLS", "Transports"], swiftSettings: strict),
        // The HTTP/1.1 client on the loop: one bounded request per connection through the
        // transports (lookup, address rule, TCP, TLS), the answer read within limits, the
        // same-origin redirect follower and the caching lifetime; Web Push sends through it.
        .target(name: "HTTPClient", dependencies: ["Clock", "EventLoop", "TLS", "Transports"], swiftSettings: strict),
        .target(name: "HTTP", dependencies: ["Clock", "EventLoop", "Logging", "CLinux", "TLS", "Transports"], swiftSettings: strict),
        // Push (`push.md`): the HTTP/2 client for APNs and the provider token; knows nothing
        // of the domain's tables.
        .target(name: "APNs", dependencies: ["Clock", "EventLoop", "Logging", "Crypto", "JSON", "TLS", "Transports", "COpenSSL", "CNGHTTP2"], swiftSettings: strict, linkerSettings: staticArchives("nghttp2")),
        // Web Push (RFC 8030, 8291, 8292): the message encryption, the VAPID token, which
        // endpoints and addresses a push may go to, and one push request over HTTP/1.1 on TLS;
        // knows nothing of the domain's tables. It sends through the HTTP client.
        .target(name: "WebPush", dependencies: ["Clock", "Crypto", "EventLoop", "HTTPClient", "JSON", "TLS", "Transports"], swiftSettings: strict),
        // The web console (`web/`), embedded at build time: the plugin runs the tool on every
        // file of the folder and compiles the table it writes into `WebAssets`.
        .executableTarget(name: "WebAssetsTool"),
        .plugin(name: "WebAssetsPlugin", capability: .buildTool(), dependencies: ["WebAssetsTool"]),
        .target(name: "WebAssets", dependencies: ["Crypto"], swiftSettings: strict, plugins: ["WebAssetsPlugin"]),
        .target(name: "Relaydeck", dependencies: ["Clock", "SQLite", "JSON", "Crypto", "Logging"], swiftSettings: strict),
        // The store's schema in PostgreSQL (issue 25): the PostgreSQL text of each of the
        // domain's migrations, numbered the same, the migrator (advisory lock, history table),
        // and the copy of a SQLite store into an empty PostgreSQL database (`migrate-to-postgres`).
        .target(name: "PostgresStore", dependencies: ["Crypto", "EventLoop", "Postgres", "Relaydeck", "SQLite"], swiftSettings: strict),
        // The push dispatcher (`push.md`): drains the domain's outbox through an `APNsSending`
        // on the loop; between the domain, which knows the tables, and APNs, which knows none.
        .target(name: "PushDispatch", dependencies: ["APNs", "WebPush", "Crypto", "Relaydeck", "EventLoop", "Logging", "Clock"], swiftSettings: strict),
        .target(name: "API", dependencies: ["Clock", "HTTP", "HTTPClient", "JSON", "Relaydeck", "Crypto", "AppIntegrity", "Logging", "EventLoop", "TLS", "WebAssets", "WebPush"], swiftSettings: strict),
        .executableTarget(
            name: "relaydeckd",
            dependencies: ["API", "APNs", "WebPush", "PushDispatch", "AppIntegrity", "HTTP", "EventLoop", "Relaydeck", "SQLite", "Crypto", "Logging", "CLinux", "TLS", "Postgres", "PostgresStore"],
            swiftSettings: strict
        ),

        // Test-only helpers: seeded randomness and temporary folders for every test target
        // (no dependencies, so the JSON and HTTP tests build no SQLite or OpenSSL), and the
        // domain's random sources for the tests that build the domain.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .target(name: "DomainTestSupport", dependencies: ["TestSupport", "Relaydeck"], path: "Tests/DomainTestSupport", swiftSettings: strict),
        // A passkey authenticator in software (keys made with OpenSSL) for the WebAuthn tests.
        .target(name: "WebAuthnTestSupport", dependencies: ["COpenSSL", "Crypto"], path: "Tests/WebAuthnTestSupport", swiftSettings: strict),
        .target(name: "HTTPTestSupport", dependencies: ["HTTP", "EventLoop"], path: "Tests/HTTPTestSupport", swiftSettings: strict),
        .testTarget(name: "EventLoopTests", dependencies: ["TestSupport", "EventLoop", "CLinux"], swiftSettings: strict),
        .testTarget(name: "HTTPTests", dependencies: ["TestSupport", "HTTPTestSupport", "HTTP", "Transports", "EventLoop"], swiftSettings: strict),
        .testTarget(name: "JSONTests", dependencies: ["TestSupport", "JSON"], swiftSettings: strict),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "Clock", "CSQLiteVFS"], swiftSettings: strict),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"], swiftSettings: strict),
        .testTarget(name: "WebPushTests", dependencies: ["TestSupport", "WebPush", "HTTPClient", "Crypto", "Clock", "EventLoop", "JSON", "TLS"], swiftSettings: strict),
        .testTarget(name: "AppIntegrityTests", dependencies: ["TestSupport", "WebAuthnTestSupport", "AppIntegrity", "Crypto"], swiftSettings: strict),
        .testTarget(name: "RelaydeckTests", dependencies: ["TestSupport", "DomainTestSupport", "Clock", "Relaydeck", "SQLite", "JSON", "Crypto"], swiftSettings: strict),
        .testTarget(name: "APITests", dependencies: ["TestSupport", "DomainTestSupport", "HTTPTestSupport", "WebAuthnTestSupport", "WebAssets", "API", "AppIntegrity", "HTTP", "Relaydeck", "JSON", "EventLoop", "Crypto", "SQLite", "WebPush", "Transports"], swiftSettings: strict),
        .testTarget(name: "PushDispatchTests", dependencies: ["TestSupport", "DomainTestSupport", "PushDispatch", "APNs", "WebPush", "Crypto", "Relaydeck", "EventLoop", "JSON", "SQLite"], swiftSettings: strict),
        .testTarget(name: "TLSTests", dependencies: ["TestSupport", "TLS", "EventLoop"], swiftSettings: strict),
        // Against a real PostgreSQL that the tests start themselves (`PostgresCluster`), and
        // against fake servers written in the tests for what a real one never does.
        .testTarget(name: "PostgresTests", dependencies: ["TestSupport", "Postgres", "Crypto", "EventLoop", "TLS", "Transports"], swiftSettings: strict),
        // The PostgreSQL schema and the copy against a real server, beside SQLite's schema.
        .testTarget(name: "PostgresStoreTests", dependencies: ["TestSupport", "PostgresStore", "Postgres", "Relaydeck", "SQLite", "EventLoop", "Clock", "Crypto"], swiftSettings: strict),
        .testTarget(name: "HTTPClientTests", dependencies: ["TestSupport", "HTTPClient", "Transports", "TLS", "EventLoop"], swiftSettings: strict),
        .testTarget(name: "TransportsTests", dependencies: ["TestSupport", "Transports", "TLS", "EventLoop"], swiftSettings: strict),
        .testTarget(name: "APNsTests", dependencies: ["TestSupport", "APNs", "EventLoop", "Crypto", "JSON", "Logging"], swiftSettings: strict),
        .testTarget(name: "relaydeckdTests", dependencies: ["relaydeckd", "Crypto", "EventLoop", "Logging", "Postgres"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
