#if canImport(Glibc)
import Glibc
#endif

/// What every test cluster starts from, made once per test process: Debian's PostgreSQL
/// binaries found, `initdb` run (as the `postgres` user under root), the roles created in
/// single-user mode, and the `pg_hba.conf` that gives each role its method. A cluster
/// copies the data folder (`cp -a`), which is much faster than `initdb`.
final class PostgresTemplate: Sendable {
    /// The folder of `initdb`, `postgres`: the newest `/usr/lib/postgresql/*/bin`.
    let bin: String
    let data: String
    let hbaFile: String
    private let directory: String

    private static let made: Result<PostgresTemplate, ChildProcessError> = {
        do throws(ChildProcessError) {
            let template = try PostgresTemplate()
            atexit { if case .success(let template) = PostgresTemplate.made { removeTree(template.directory) } }
            return .success(template)
        } catch {
            return .failure(error)
        }
    }()

    static func shared() throws(ChildProcessError) -> PostgresTemplate {
        try made.get()
    }

    private init() throws(ChildProcessError) {
        guard let bin = Self.findBinaries() else {
            throw ChildProcessError(message: "no PostgreSQL server in /usr/lib/postgresql/*/bin: install Debian's postgresql package (make test-deps)")
        }
        self.bin = bin
        directory = try Self.makeOwnedDirectory()
        data = directory + "/template"
        hbaFile = directory + "/pg_hba.conf"
        let passwordFile = directory + "/password"
        TemporaryDirectory.write(Array(PostgresCluster.passwords["rd_admin"]!.utf8), to: passwordFile)
        Self.giveToServer(passwordFile)
        try Self.runAsServer([bin + "/initdb", "-D", data, "-U", "rd_admin", "--pwfile=" + passwordFile, "-A", "scram-sha-256",
                              "-E", "UTF8", "--locale=C", "--no-sync"], in: directory, log: directory + "/initdb.log")
        // One statement a line: single-user mode ends a statement at the newline.
        let setup = """
            CREATE ROLE rd_scram LOGIN PASSWORD '\(PostgresCluster.passwords["rd_scram"]!)'
            CREATE ROLE rd_plain LOGIN PASSWORD '\(PostgresCluster.passwords["rd_plain"]!)'
            CREATE ROLE rd_trust LOGIN
            SET password_encryption = 'md5'
            CREATE ROLE rd_md5 LOGIN PASSWORD '\(PostgresCluster.passwords["rd_md5"]!)'
            GRANT CREATE ON SCHEMA public TO PUBLIC

            """
        let setupFile = directory + "/setup.sql"
        TemporaryDirectory.write(Array(setup.utf8), to: setupFile)
        Self.giveToServer(setupFile)
        try Self.runAsServer([bin + "/postgres", "--single", "-D", data, "postgres"], in: directory, stdin: setupFile,
                             log: directory + "/setup.log")
        let hba = """
            local all all trust
            host all rd_trust 127.0.0.1/32 trust
            host all rd_plain 127.0.0.1/32 password
            host all rd_md5 127.0.0.1/32 md5
            host all all 127.0.0.1/32 scram-sha-256

            """
        TemporaryDirectory.write(Array(hba.utf8), to: hbaFile)
        Self.giveToServer(hbaFile)
    }

    private static func findBinaries() -> String? {
        guard let folder = opendir("/usr/lib/postgresql") else { return nil }
        defer { closedir(folder) }
        var versions: [Int] = []
        while let entry = readdir(folder) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            if let version = Int(name), fileExists("/usr/lib/postgresql/\(name)/bin/initdb") { versions.append(version) }
        }
        return versions.max().map { "/usr/lib/postgresql/\($0)/bin" }
    }

    /// Whether the tests run as root, where the server's programs run as `postgres`.
    static var isRoot: Bool { geteuid() == 0 }

    /// `arguments` as the server's user (itself, or `postgres` through `setpriv` under root),
    /// run in `directory`: PostgreSQL's programs resolve their own path from the working
    /// directory, which the `postgres` user may not be allowed into (a CI checkout of root's).
    static func asServer(_ arguments: [String], in directory: String) -> [String] {
        let inDirectory = ["sh", "-c", "cd \"$0\" && exec \"$@\"", directory] + arguments
        guard isRoot else { return inDirectory }
        return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"] + inDirectory
    }

    static func runAsServer(_ arguments: [String], in directory: String, stdin: String = "/dev/null", log: String) throws(ChildProcessError) {
        let status = try ChildProcess(asServer(arguments, in: directory), stdin: stdin, stdout: log, stderr: log).wait()
        guard status == 0 else {
            throw ChildProcessError(message: "\(arguments[0]) exited with \(status): \(String(decoding: readFile(log), as: UTF8.self))")
        }
    }

    /// A new folder under /tmp that the server's user owns.
    static func makeOwnedDirectory() throws(ChildProcessError) -> String {
        var template = Array("/tmp/relaydeck-pg-XXXXXX".utf8CString)
        let path = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        guard let path else { throw ChildProcessError(message: "mkdtemp failed: errno \(errno)") }
        giveToServer(path)
        return path
    }

    /// Under root, hands `path` to the `postgres` user (the server refuses a key it does
    /// not own, and must write its folders).
    static func giveToServer(_ path: String) {
        guard isRoot, let user = getpwnam("postgres") else { return }
        chown(path, user.pointee.pw_uid, user.pointee.pw_gid)
    }

    static func removeTree(_ path: String) {
        TemporaryDirectory.removeTree(path)
    }
}
