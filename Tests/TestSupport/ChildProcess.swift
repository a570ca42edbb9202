#if canImport(Glibc)
import Glibc
#endif

/// A program a test starts (`openssl`, the mock APNs server): searched on PATH, stdin from
/// /dev/null unless a file is given, stdout and stderr into files the test reads. Killed
/// (SIGTERM) and reaped when released, so a failing test leaves nothing running.
public final class ChildProcess {
    public let pid: pid_t
    private var exitStatus: Int32?

    public init(_ arguments: [String], stdin: String = "/dev/null", stdout: String, stderr: String) throws(ChildProcessError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // The test runner blocks signals in its threads, and a child inherits the mask: the
        // child gets an empty mask and default handlers, so that SIGTERM ends it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard status == 0 else { throw ChildProcessError(message: "cannot start \(arguments[0]): errno \(status)") }
        self.pid = pid
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGTERM)
            _ = wait()
        }
    }

    /// Sends SIGTERM.
    public func terminate() {
        if exitStatus == nil { kill(pid, SIGTERM) }
    }

    /// Waits for the exit: the exit code, or 128 + the signal.
    @discardableResult
    public func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        exitStatus = code
        return code
    }

    /// Whether it has exited, without waiting.
    public var hasExited: Bool {
        if exitStatus != nil { return true }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return false }
        exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return true
    }

    /// Runs a program to its end: the exit code.
    public static func run(_ arguments: [String], output: String) throws(ChildProcessError) -> Int32 {
        try ChildProcess(arguments, stdout: output, stderr: output).wait()
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
