#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

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
