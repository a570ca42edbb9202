#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of the tests' own: Debian's `postgresql` binaries, a cluster made by
/// `initdb` in a temporary folder, served by `postgres` on a loopback port and a Unix socket
/// in that folder, with TLS (a CA and a server certificate for `localhost` made with
/// `openssl`), and stopped and removed when released. No system service is touched.
///
/// Under root (CI) the server runs as the `postgres` user (`setpriv`), as `initdb` and
/// `postgres` refuse root; the folder is that user's.
///
/// `initdb` runs once per test process (`PostgresTemplate`); each cluster copies its result.
/// The roles: `rd_admin` (superuser, SCRAM), `rd_scram`, `rd_md5` (an MD5-stored password,
/// the `md5` method), `rd_plain` (the cleartext `password` method), `rd_trust` (`trust`);
/// passwords in `PostgresCluster.passwords`. Over the Unix socket every role is trusted.
public final class PostgresCluster: @unchecked Sendable {
    // @unchecked: every property is set in `init` and never changed but `process` and
    // `stopped`, which only `stop`, `beginStop` and `restart` (the owner's, or the process's
    // exit) touch.

    public static let passwords = [
        "rd_admin": "admin-secret", "rd_scram": "scram-secret", "rd_md5": "md5-secret", "rd_plain": "plain-secret",
    ]

    /// The folder holding the data, the socket, the certificates and the logs.
    public let directory: String
    public let port: UInt16
    /// The CA that signed the server's certificate (for `localhost`, `DNS:localhost` only).
    public let caFile: String
    public let logFile: String
    private let command: [String]
    private let data: String
    private var process: ChildProcess
    private var stopped = false

    /// One cluster for the tests that share it (each works in TEMP tables of its own
    /// session); stopped at the process's exit.
    public static let shared: PostgresCluster = {
        do {
            let cluster = try PostgresCluster()
            atexit {
                PostgresCluster.shared.stop()
                PostgresTemplate.removeTree(PostgresCluster.shared.directory)
            }
            return cluster
        } catch {
            fatalError("cannot start the test PostgreSQL: \(error)")
        }
    }()

    public init() throws(ChildProcessError) {
        let template = try PostgresTemplate.shared()
        directory = try PostgresTemplate.makeOwnedDirectory()
        port = freeLoopbackPort()
        caFile = directory + "/ca.pem"
        logFile = directory + "/postgres.log"
        data = directory + "/data"
        try PostgresTemplate.runAsServer(["cp", "-a", template.data, data], in: directory, log: directory + "/copy.log")
        try Self.makeCertificates(in: directory)
        try PostgresTemplate.runAsServer(["cp", template.hbaFile, directory + "/pg_hba.conf"], in: directory, log: directory + "/copy.log")
        let settings = [
            "listen_addresses=127.0.0.1", "port=\(port)", "unix_socket_directories=\(directory)",
            "hba_file=\(directory)/pg_hba.conf", "ssl=on", "ssl_cert_file=\(directory)/server.pem",
            "ssl_key_file=\(directory)/server-key.pem", "fsync=off", "synchronous_commit=off", "full_page_writes=off",
            "max_connections=100", "shared_buffers=16MB", "log_min_messages=warning",
        ]
        command = PostgresTemplate.asServer([template.bin + "/postgres", "-D", data] + settings.flatMap { ["-c", $0] }, in: directory)
        process = try ChildProcess(command, stdout: logFile, stderr: logFile)
        try waitUntilReady()
    }

    deinit {
        stop()
        PostgresTemplate.removeTree(directory)
    }

    /// A fast shutdown (SIGINT: sessions end with 57P01, then the server exits), waited for.
    public func stop() {
        beginStop()
        process.wait()
    }

    /// A fast shutdown begun and not waited for, as `pg_ctl stop -m fast` does it: clients
    /// see the server go while it goes. `restart` or `stop` waits for its end.
    public func beginStop() {
        guard !stopped else { return }
        stopped = true
        kill(process.pid, SIGINT)
    }

    /// The server started again on the same port, socket and data, once the last one has
    /// exited (a failover's return); `waiting`: returns once it accepts connections, else at
    /// once, so that clients meet it starting up. Its log is `logFile` with `.restarted` after
    /// it, the first one's kept.
    public func restart(waiting: Bool = true) throws(ChildProcessError) {
        stop()
        process = try ChildProcess(command, stdout: logFile + ".restarted", stderr: logFile + ".restarted")
        stopped = false
        if waiting { try waitUntilReady() }
    }

    /// The server's log so far, for a failed test's message.
    public var log: String { String(decoding: readFile(logFile), as: UTF8.self) }

    /// `postmaster.pid`'s eighth line says `ready` once the server accepts connections.
    private func waitUntilReady() throws(ChildProcessError) {
        for _ in 0..<1500 {
            let lines = String(decoding: readFile(data + "/postmaster.pid"), as: UTF8.self).split(separator: "\n")
            if lines.count >= 8 && lines[7].hasPrefix("ready") { return }
            if process.hasExited { break }
            usleep(20_000)
        }
        stop()
        throw ChildProcessError(message: "the test PostgreSQL did not start: \(log)")
    }

    /// A CA, and a certificate for `localhost` it signs, with `openssl`; the key the server's.
    private static func makeCertificates(in directory: String) throws(ChildProcessError) {
        let log = directory + "/openssl.log"
        let steps: [[String]] = [
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
             directory + "/ca-key.pem", "-out", directory + "/ca.pem", "-days", "2", "-subj", "/CN=relaydeck test CA"],
            ["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
             directory + "/server-key.pem", "-out", directory + "/server.csr", "-subj", "/CN=localhost"],
            ["sh", "-c", "printf 'subjectAltName=DNS:localhost\\n' > \"$0\"", directory + "/server.ext"],
            ["openssl", "x509", "-req", "-in", directory + "/server.csr", "-CA", directory + "/ca.pem", "-CAkey",
             directory + "/ca-key.pem", "-CAcreateserial", "-out", directory + "/server.pem", "-days", "2", "-extfile",
             directory + "/server.ext"],
        ]
        for step in steps {
            guard try ChildProcess.run(step, output: log) == 0 else {
                throw ChildProcessError(message: "\(step[0]) failed: \(String(decoding: readFile(log), as: UTF8.self))")
            }
        }
        PostgresTemplate.giveToServer(directory + "/server-key.pem")
        PostgresTemplate.giveToServer(directory + "/server.pem")
    }
}
