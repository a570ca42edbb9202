#if canImport(Glibc)
import Glibc
#endif
@testable import relaydeckd

/// An in-memory file system for `Config.load`: missing paths throw ENOENT like the real reader.
func files(_ contents: [String: String], unreadable: Set<String> = []) -> (String) throws -> [UInt8] {
    { path in
        if unreadable.contains(path) { throw FileReadError(path: path, reason: .system(EACCES)) }
        guard let text = contents[path] else { throw FileReadError(path: path, reason: .system(ENOENT)) }
        return Array(text.utf8)
    }
}

/// The error `Config.load` throws for `environment`, or nil if it loads.
func loadError(_ environment: [String: String], files contents: [String: String] = [:], unreadable: Set<String> = []) -> ConfigError? {
    do {
        _ = try Config.load(environment: environment, readFile: files(contents, unreadable: unreadable))
        return nil
    } catch {
        return error
    }
}

/// The configuration for `environment`; throws the `ConfigError` (failing the test) if any.
func load(_ environment: [String: String], files contents: [String: String] = [:]) throws -> Config {
    try Config.load(environment: environment, readFile: files(contents))
}

/// Whether any four consecutive characters of `secret` occur in `text`: a message may
/// not quote a secret even in part.
func leaks(_ secret: String, in text: String) -> Bool {
    let characters = Array(secret)
    guard characters.count >= 4 else { return text.contains(secret) }
    for start in 0...(characters.count - 4) where text.contains(String(characters[start..<(start + 4)])) {
        return true
    }
    return false
}

enum PEM {
    static let certificate = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"
    static let privateKey = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgkeyMaterial\n-----END PRIVATE KEY-----\n"
    static let ecPrivateKey = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIfake\n-----END EC PRIVATE KEY-----\n"
}
