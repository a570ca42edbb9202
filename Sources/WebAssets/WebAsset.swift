import Crypto

/// One file of the web console (the `web/` folder), embedded in the binary at build time by
/// the `WebAssetsPlugin`. The table it writes (`WebAsset.encoded`) is decoded once, at the
/// first request for the console.
public struct WebAsset: Sendable {
    /// The path below `web/` (`index.html`, `icons/icon-192.png`).
    public let path: String
    public let contentType: String
    public let bytes: [UInt8]
    /// A strong validator: the first 16 bytes of the SHA-256 of the bytes, in hex, quoted.
    public let etag: String

    /// Every file, by its path below `web/`.
    public static let all: [String: WebAsset] = {
        var table: [String: WebAsset] = [:]
        for entry in encoded {
            // The tool wrote this base64 itself; a failure to decode is a defect of the build.
            guard let bytes = Base64.decode(entry.base64) else { preconditionFailure("web/\(entry.path) is not valid base64") }
            table[entry.path] = WebAsset(path: entry.path, contentType: entry.contentType, bytes: bytes,
                                         etag: "\"" + Hex.encode(Array(SHA256.hash(bytes).prefix(16))) + "\"")
        }
        return table
    }()
}
