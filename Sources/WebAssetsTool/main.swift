#if canImport(Glibc)
import Glibc
#endif

// The build tool of the `WebAssetsPlugin`: `WebAssetsTool OUTPUT WEB_DIR` writes one Swift
// file that holds every file under WEB_DIR (at any depth; names starting with `.` skipped) as
// an entry of `WebAsset.encoded`: its path below WEB_DIR, its content type, and its bytes.
// OUTPUT is rewritten only when its text changes: the tool runs on every build. The bytes go in as base64 string
// literals, decoded once at first use: the compiler reads a long string literal at once,
// while an array literal of a hundred thousand integers costs seconds of type checking.
// A file whose type this tool does not know stops the build, so no file is ever served as
// something the browser has to guess.

/// Content types by the file name's extension (lowercased).
let contentTypes: [String: String] = [
    "html": "text/html; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
    "mjs": "text/javascript; charset=utf-8",
    "json": "application/json",
    "webmanifest": "application/manifest+json",
    "svg": "image/svg+xml",
    "png": "image/png",
    "ico": "image/x-icon",
    "webp": "image/webp",
    "txt": "text/plain; charset=utf-8",
    "woff2": "font/woff2",
]

func fail(_ message: String) -> Never {
    let line = Array("WebAssetsTool: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fail("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count > 0 { bytes.append(contentsOf: buffer[0..<count]) }
        if count < buffer.count {
            if ferror(file) != 0 { fail("cannot read \(path)") }
            break
        }
    }
    return bytes
}

let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

func base64(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i < bytes.count {
        let b0 = UInt32(bytes[i])
        let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
        let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
        let n = b0 << 16 | b1 << 8 | b2
        out.append(alphabet[Int(n >> 18)])
        out.append(alphabet[Int(n >> 12 & 63)])
        out.append(i + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
        out.append(i + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
        i += 3
    }
    return String(decoding: out, as: UTF8.self)
}

/// A Swift string literal of plain text (the paths and types: printable ASCII only).
func literal(_ text: String) -> String {
    guard text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
        fail("the name \(text) has characters a web path should not have")
    }
    return "\"\(text)\""
}

/// The regular files under `directory` (a path ending in `/`), as paths relative to `root`.
func walk(_ directory: String, relative: String, into files: inout [String]) {
    guard let handle = opendir(directory) else { fail("cannot read the folder \(directory)") }
    defer { closedir(handle) }
    while let entry = readdir(handle) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name.hasPrefix(".") { continue }
        let path = directory + name
        var status = stat()
        guard stat(path, &status) == 0 else { fail("cannot read \(path)") }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: walk(path + "/", relative: relative + name + "/", into: &files)
        case S_IFREG: files.append(relative + name)
        default: continue
        }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2 else { fail("usage: WebAssetsTool OUTPUT WEB_DIR") }
let output = arguments[0]
var webDirectory = arguments[1]
if !webDirectory.hasSuffix("/") { webDirectory += "/" }
var files: [String] = []
walk(webDirectory, relative: "", into: &files)

var source = """
    // Written by WebAssetsTool from the files of web/ at build time. Do not edit.

    extension WebAsset {
        static let encoded: [(path: String, contentType: String, base64: String)] = [

    """
// Sorted by bytes, so the text (and the build) does not depend on the folder's order.
for path in files.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: "."),
          let type = contentTypes[name[name.index(after: dot)...].lowercased()] else {
        fail("web/\(path): unknown file type; add its extension to WebAssetsTool's contentTypes")
    }
    source += "        (\(literal(path)), \(literal(type)), \"\(base64(readFile(webDirectory + path)))\"),\n"
}
source += "    ]\n}\n"

let bytes = Array(source.utf8)
if access(output, F_OK) == 0, readFile(output) == bytes { exit(0) }
guard let out = fopen(output, "wb") else { fail("cannot write \(output)") }
guard fwrite(bytes, 1, bytes.count, out) == bytes.count, fclose(out) == 0 else { fail("cannot write \(output)") }
