#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// The package's root, from this file's path (tests run the mock and read fixtures there).
let packageRoot: String = {
    var path = #filePath
    for _ in 0..<3 {
        while let last = path.last, last != "/" { path.removeLast() }
        path.removeLast()
    }
    return path
}()

func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "r") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    return bytes
}

func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

/// A P-256 key made by the `openssl` command: (PKCS #8 PEM of the private key, path of the
/// public key PEM).
func makeP256Key(in directory: TemporaryDirectory, name: String = "key") throws -> (pem: [UInt8], publicKeyFile: String) {
    let keyFile = directory.file("\(name).pem")
    let publicFile = directory.file("\(name)-public.pem")
    #expect(try ChildProcess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyFile],
                                 output: directory.file("\(name).log")) == 0)
    #expect(try ChildProcess.run(["openssl", "pkey", "-in", keyFile, "-pubout", "-out", publicFile],
                                 output: directory.file("\(name).log")) == 0)
    return (readFile(keyFile), publicFile)
}
