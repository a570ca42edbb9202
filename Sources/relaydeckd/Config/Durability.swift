import SQLite

/// `DURABILITY` (README, "The store"): what a write that was answered `2xx` survives. Both
/// survive the process's end, a `kill -9` included (WAL mode: the COMMIT is in the WAL file
/// before the answer leaves); `full` also survives a power cut or a kernel crash, at the
/// price of an `fsync` of the WAL at every COMMIT (the write row of `make bench` under each).
enum Durability: String, Sendable {
    /// `synchronous=NORMAL`: the WAL is synced at checkpoints only, so a power cut may take
    /// the last commits before it (the file stays consistent).
    case normal
    /// `synchronous=FULL`: each COMMIT waits for the WAL's `fsync`.
    case full

    var synchronous: Database.Options.Synchronous {
        switch self {
        case .normal: .normal
        case .full: .full
        }
    }
}
