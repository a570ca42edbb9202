#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The one way into the loop from another thread: queue work and wake the loop through its
/// eventfd. This queue is the only locked thing in the server (see docs/architecture.md: a
/// helper thread posts the result of a blocking call, such as DNS, back to the loop).
public final class EventLoopHandle: Sendable {
    let eventFD: Int32
    private let queue = Mutex<[@Sendable () -> Void]>([])

    init(eventFD: Int32) {
        self.eventFD = eventFD
    }

    /// Runs `work` on the loop thread soon. Safe from any thread.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        let wasEmpty = queue.withLock { pending in
            pending.append(work)
            return pending.count == 1
        }
        // One wake-up per batch: the loop drains everything queued when it wakes.
        if wasEmpty {
            var one: UInt64 = 1
            _ = write(eventFD, &one, 8)
        }
    }

    func takeAll() -> [@Sendable () -> Void] {
        queue.withLock { pending in
            let all = pending
            pending.removeAll()
            return all
        }
    }
}
