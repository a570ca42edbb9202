#if canImport(Glibc)
import Glibc
#endif

/// One environment variable, for the length of the mutation run.
enum ProcessInfoLite {
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
