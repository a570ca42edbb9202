#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Logging
import TLS
import Transports

/// HTTPS: a server `TLSTransport` for each accepted connection, with the certificate loaded
/// last. A reload (`SIGHUP`) swaps the certificate for new connections; open ones keep their
/// session.
public final class TLSTransportFactory: TransportFactory {
    /// HTTPS here is HTTP/1.1 only: a client that offers ALPN must offer `http/1.1`.
    public static let alpn = ["http/1.1"]

    private let context: TLSServerContext
    public let certificateFile: String
    public let keyFile: String

    public init(certificateFile: String, keyFile: String) throws(TLSError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        context = try TLSServerContext(certificateChainFile: certificateFile, privateKeyFile: keyFile, alpn: Self.alpn)
    }

    /// Reads both files again; on failure the old certificate stays and the error says why.
    public func reload() throws(TLSError) {
        try context.reload(certificateChainFile: certificateFile, privateKeyFile: keyFile)
    }

    public func makeTransport(fd: Int32) throws(Errno) -> any Transport {
        do {
            return try TLSTransport(server: context, fd: fd)
        } catch {
            Log.warn("could not start a TLS session", ["error": error.message])
            throw Errno(EPROTO)
        }
    }
}
