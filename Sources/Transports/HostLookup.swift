#if canImport(Glibc)
import Glibc
#endif
import EventLoop

/// A name lookup off the loop thread: `NameResolver` blocks while DNS answers, so it runs on
/// a short-lived thread of its own, which hands the answer back through the loop's handle.
/// An IP address literal needs no lookup and no thread.
public enum HostLookup {
    public static func resolve(
        _ host: String, loop: EventLoop, completion: @escaping (Result<[IPAddress], HostLookupError>) -> Void
    ) {
        if let literal = IPAddress(host) {
            loop.runSoon { completion(.success([literal])) }
            return
        }
        let handle = loop.handle
        // The completion belongs to the loop thread; the helper thread only carries it back.
        let carried = LoopBound(completion)
        let started = startThread {
            let result: Result<[IPAddress], HostLookupError>
            do throws(NameResolutionError) {
                result = .success(try NameResolver.addresses(of: host))
            } catch {
                result = .failure(HostLookupError(description: error.description, isPermanent: error.isPermanent))
            }
            handle.execute { carried.value(result) }
        }
        if !started {
            loop.runSoon {
                completion(.failure(HostLookupError(description: "cannot resolve \(String(reflecting: host)): no thread for the lookup",
                                                    isPermanent: false)))
            }
        }
    }

    /// Runs `work` on a new detached thread; false when none could be made.
    private static func startThread(_ work: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(ThreadWork(work)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            let work = Unmanaged<ThreadWork>.fromOpaque(raw!).takeRetainedValue()
            work.run()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<ThreadWork>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    private final class ThreadWork: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}

/// A loop-thread value carried through another thread untouched and used only once it is
/// back on the loop thread (`EventLoopHandle.execute` runs it there).
final class LoopBound<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Why a lookup gave no address, as one line (`NameResolutionError`'s words).
public struct HostLookupError: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// The name has no address, as opposed to a lookup that failed for now.
    public let isPermanent: Bool

    public init(description: String, isPermanent: Bool) {
        self.description = description
        self.isPermanent = isPermanent
    }
}
