#if canImport(Glibc)
import Glibc
#endif

/// Whether stderr is the systemd journal. systemd sets `JOURNAL_STREAM=DEVICE:INODE` (both
/// decimal) when it connects stderr to the journal (systemd.exec(5)); the variable is
/// inherited by every child, so it counts only while stderr is still that very stream: a
/// command run from a service's shell with stderr sent to a file keeps today's format.
public enum JournalStream {
    public static func isStandardError(_ value: String?) -> Bool {
        guard let value else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return matches(value, device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// `value` names exactly this device and inode.
    public static func matches(_ value: String, device: UInt64, inode: UInt64) -> Bool {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
              let streamDevice = UInt64(parts[0]), let streamInode = UInt64(parts[1]) else { return false }
        return streamDevice == device && streamInode == inode
    }
}
