/// Reads and checks single variables for `Config.load`; each accessor throws the one
/// `ConfigError` that names the variable.
struct ConfigReader {
    let environment: [String: String]
    let readFile: (String) throws -> [UInt8]

    /// The value of `name`; nil when unset or empty (`NAME=` in an EnvironmentFile).
    func value(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// `$CREDENTIALS_DIRECTORY`, set by systemd for `LoadCredential=` and `SetCredential=`.
    var credentialsDirectory: String? { value("CREDENTIALS_DIRECTORY") }

    /// A whole decimal number in `range`, or `defaultValue` when unset.
    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let text = value(name) else { return defaultValue }
        guard let number = ConfigSyntax.decimal(text), range.contains(number) else {
            throw ConfigError(name, "expected a whole number from \(range.lowerBound) to \(range.upperBound) (got \(ConfigError.quoted(text)))")
        }
        return number
    }

    /// A size in bytes (`ConfigSyntax.bytes`) within `range`, or `defaultValue` when unset.
    func bytes(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let text = value(name) else { return defaultValue }
        guard let bytes = ConfigSyntax.bytes(text), range.contains(bytes) else {
            throw ConfigError(name, "expected a size from \(ConfigSyntax.byteText(range.lowerBound)) to "
                + "\(ConfigSyntax.byteText(range.upperBound)): bytes, or a whole number with KiB, MiB or GiB like 256MiB "
                + "(got \(ConfigError.quoted(text)))")
        }
        return bytes
    }

    /// Seconds with up to three decimals (`10`, `0.5`, `0.125`) as milliseconds, within
    /// `range` (in milliseconds), or `defaultMillis` when unset.
    func milliseconds(_ name: String, default defaultMillis: Int, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let text = value(name) else { return defaultMillis }
        guard let millis = ConfigSyntax.milliseconds(text), range.contains(millis) else {
            throw ConfigError(name, "expected seconds from \(ConfigSyntax.seconds(range.lowerBound)) to "
                + "\(ConfigSyntax.seconds(range.upperBound)), with up to 3 decimals like 10 or 0.5 (got \(ConfigError.quoted(text)))")
        }
        return millis
    }

    /// One of `choices` (compared case-insensitively, returned as listed), or `defaultValue`.
    func choice(_ name: String, _ choices: [String], default defaultValue: String) throws(ConfigError) -> String {
        guard let text = value(name) else { return defaultValue }
        let lowered = text.lowercased()
        guard let match = choices.first(where: { $0.lowercased() == lowered }) else {
            let list = choices.dropLast().joined(separator: ", ") + " or " + (choices.last ?? "")
            throw ConfigError(name, "expected \(list) (got \(ConfigError.quoted(text)))")
        }
        return match
    }

    /// A secret's bytes and where they came from, for messages that must not show them.
    struct Secret {
        let bytes: [UInt8]
        /// The variable to name in an error: `NAME` or `NAME_FILE`.
        let variable: String
        /// The file it was read from, quoted, or nil for the variable itself.
        let location: String?

        func error(_ problem: String) -> ConfigError {
            ConfigError(variable, location.map { "\($0): \(problem)" } ?? problem)
        }
    }

    /// The secret `name`, from the first of these that is set:
    /// 1. `NAME` itself;
    /// 2. `NAME_FILE`, a path; a relative path resolves against `$CREDENTIALS_DIRECTORY`
    ///    when that is set (so `NAME_FILE=totp` finds a systemd credential named `totp`),
    ///    else against the working directory;
    /// 3. `$CREDENTIALS_DIRECTORY/NAME`, when neither is set and that file exists (a systemd
    ///    credential named like the variable: `LoadCredential=APP_TOTP_SECRET:/etc/...`).
    /// `NAME` and `NAME_FILE` both set is an error. Nil when none is set.
    func secret(_ name: String) throws(ConfigError) -> Secret? {
        let fileVariable = name + "_FILE"
        let direct = value(name)
        let path = value(fileVariable)
        if direct != nil && path != nil {
            throw ConfigError(name, "set together with \(fileVariable); set only one of them")
        }
        if let direct {
            return Secret(bytes: Array(direct.utf8), variable: name, location: nil)
        }
        if let path {
            let resolved = resolveAgainstCredentials(path)
            return Secret(bytes: try read(resolved, for: fileVariable), variable: fileVariable, location: ConfigError.quoted(resolved))
        }
        guard let directory = credentialsDirectory else { return nil }
        let credential = Self.join(directory, name)
        do {
            return Secret(bytes: try readFile(credential), variable: name, location: "credential " + ConfigError.quoted(credential))
        } catch let error as FileReadError where error.isNotFound {
            return nil
        } catch {
            throw ConfigError(name, "credential: " + Self.describe(error, path: credential))
        }
    }

    /// The path in `name` after checking that the file reads and holds `marker`; nil when
    /// unset. The contents are not kept (the consumer loads them) and never quoted.
    func file(_ name: String, containing marker: String, what: String) throws(ConfigError) -> String? {
        guard let path = value(name) else { return nil }
        let contents = try read(path, for: name)
        guard ConfigSyntax.contains(contents, marker) else {
            throw ConfigError(name, "\(ConfigError.quoted(path)) holds no \(what) (no \(marker) line)")
        }
        return path
    }

    func read(_ path: String, for variable: String) throws(ConfigError) -> [UInt8] {
        do {
            return try readFile(path)
        } catch {
            throw ConfigError(variable, Self.describe(error, path: path))
        }
    }

    func resolveAgainstCredentials(_ path: String) -> String {
        guard !path.hasPrefix("/"), let directory = credentialsDirectory else { return path }
        return Self.join(directory, path)
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    static func describe(_ error: any Error, path: String) -> String {
        if let error = error as? FileReadError { return error.description }
        return "cannot read \(ConfigError.quoted(path)): \(error)"
    }
}
