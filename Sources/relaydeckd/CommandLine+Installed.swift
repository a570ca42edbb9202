#if canImport(Glibc)
import Glibc
#endif

/// An operator command run as root on a system the package installed (`sudo relaydeckd
/// account create`): it gets the settings the service gets and runs as the service's user,
/// so the database and its -wal and -shm files keep their owner. The settings file is
/// root:root 0640 and the credentials 0600, so they are read as root first; the privileges
/// are dropped before the store is opened.
enum InstalledSystem {
    static let serviceUser = "relaydeck"
    static let settingsFile = "/etc/relaydeck/relaydeck.env"
    static let passwdFile = "/etc/passwd"
    /// The unit's `Environment=DATABASE_PATH=...`.
    static let databasePath = "/var/lib/relaydeck/relaydeck.db"
    /// The unit's `LoadCredential=NAME:file`, looked up in `/etc/credstore` as systemd does.
    static let credentials = [("APNS_PRIVATE_KEY", "/etc/credstore/relaydeck.apns-private-key"),
                              ("APP_TOTP_SECRET", "/etc/credstore/relaydeck.app-totp-secret"),
                              ("DATABASE_URL", "/etc/credstore/relaydeck.database-url")]

    struct Account: Equatable {
        let uid: uid_t
        let gid: gid_t
    }

    /// The service's environment for a command: the unit's `DATABASE_PATH`, then the settings
    /// file, then what the caller set itself (`sudo LOG_LEVEL=debug relaydeckd backup F`);
    /// a credential file that exists becomes `NAME_FILE` unless `NAME` or `NAME_FILE` is set.
    static func environment(caller: [String: String], settings: [String: String], existing: (String) -> Bool) -> [String: String] {
        var environment = ["DATABASE_PATH": databasePath]
        environment.merge(settings) { $1 }
        environment.merge(caller) { $1 }
        for (name, file) in credentials where environment[name] == nil && environment[name + "_FILE"] == nil && existing(file) {
            environment[name + "_FILE"] = file
        }
        return environment
    }

    /// `NAME=value` lines as systemd's `EnvironmentFile=` reads them: blank lines and lines
    /// starting with `#` or `;` skipped, whitespace around the name and the value trimmed,
    /// one pair of double or single quotes around the value removed (`\"` and `\\` inside
    /// double quotes). A line that is none of these fails with its number.
    static func parseSettings(_ text: String) -> Result<[String: String], SettingsLineError> {
        var settings: [String: String] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = trim(rawLine)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            guard let equals = line.firstIndex(of: "=") else { return .failure(SettingsLineError(line: index + 1)) }
            let name = trim(line[..<equals])
            guard let first = name.utf8.first, !(0x30...0x39).contains(first),
                  name.utf8.allSatisfy({ $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
            else { return .failure(SettingsLineError(line: index + 1)) }
            settings[String(name)] = unquote(trim(line[line.index(after: equals)...]))
        }
        return .success(settings)
    }

    struct SettingsLineError: Error, Equatable {
        let line: Int
    }

    /// The uid and gid of `user` in a passwd file (the static binary reads the file itself:
    /// NSS modules cannot be loaded into it).
    static func account(_ user: String, passwd: String) -> Account? {
        for line in passwd.split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 7, fields[0] == user, let uid = UInt32(fields[2]), let gid = UInt32(fields[3]) else { continue }
            return Account(uid: uid, gid: gid)
        }
        return nil
    }

    /// Becomes `account` for good: its group alone, then its user; a failure is an error,
    /// never a command run as root.
    static func become(_ account: Account) -> String? {
        var groups = [account.gid]
        guard setgroups(1, &groups) == 0 else { return "setgroups: \(String(cString: strerror(errno)))" }
        guard setgid(account.gid) == 0 else { return "setgid: \(String(cString: strerror(errno)))" }
        guard setuid(account.uid) == 0 else { return "setuid: \(String(cString: strerror(errno)))" }
        // A root that could come back would not have dropped anything.
        guard account.uid == 0 || (getuid() == account.uid && geteuid() == account.uid && setuid(0) != 0) else {
            return "could not drop root privileges"
        }
        return nil
    }

    private static func trim(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }

    private static func unquote(_ value: Substring) -> String {
        guard value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first else { return String(value) }
        let inner = value.dropFirst().dropLast()
        guard first == "\"" else { return String(inner) }
        var out = ""
        var escaped = false
        for character in inner {
            if escaped || character != "\\" {
                out.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        return out
    }
}

extension CommandLine {
    /// The settings of an operator command. As root, with the service user in /etc/passwd
    /// and no `DATABASE_PATH` of the caller's own (which names another database than the
    /// service's): the service's settings (see `InstalledSystem`), read as root, then the
    /// privileges dropped to that user. Otherwise the environment as it is.
    static func operatorConfig() -> Config? {
        let caller = ProcessEnvironment.current()
        guard geteuid() == 0, (caller["DATABASE_PATH"] ?? "").isEmpty, let passwd = try? Config.readFileFromDisk(InstalledSystem.passwdFile),
              let account = InstalledSystem.account(InstalledSystem.serviceUser, passwd: String(decoding: passwd, as: UTF8.self))
        else { return loadConfig()?.0 }
        var settings: [String: String] = [:]
        do {
            let bytes = try Config.readFileFromDisk(InstalledSystem.settingsFile)
            switch InstalledSystem.parseSettings(String(decoding: bytes, as: UTF8.self)) {
            case .success(let parsed): settings = parsed
            case .failure(let error):
                printError("\(InstalledSystem.settingsFile): line \(error.line) is not NAME=value")
                return nil
            }
        } catch let error as FileReadError where error.isNotFound {
            // No settings file: the unit's defaults alone.
        } catch {
            printError("\(InstalledSystem.settingsFile): \(error)")
            return nil
        }
        let environment = InstalledSystem.environment(caller: caller, settings: settings,
                                                      existing: { access($0, F_OK) == 0 })
        let config: Config
        do {
            config = try Config.load(environment: environment)
        } catch {
            printError(error.description)
            return nil
        }
        if let problem = InstalledSystem.become(account) {
            printError("cannot run as \(InstalledSystem.serviceUser): \(problem)")
            return nil
        }
        return config
    }
}
