// What it costs to run a request's store work as Swift concurrency on the loop's thread
// (issue 25, "Next: the store on PostgreSQL", step 2), before the services are changed:
// a Task per request on a serial executor that the loop drains, against a plain call. The
// executor is also the tasks' executor preference, so a task starts on it and never passes
// through the global pool's threads.
// Not a row of bench.py; bench/executor.sh builds and runs it. One thread throughout, as the
// loop is: the executor's queue is read and written by that thread only.

#if canImport(Glibc)
import Glibc
#endif

/// The thread that runs `main`, the loop's stand-in: every job must be enqueued from it.
let loopThread = pthread_self()

@usableFromInline nonisolated(unsafe) var sink = 0
nonisolated(unsafe) var parked: [UnsafeContinuation<Int, Never>] = []

/// The loop's run queue as an executor: jobs wait until the turn drains them.
final class LoopExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    var queue: [UnownedJob] = []

    func enqueue(_ job: consuming ExecutorJob) {
        // A job from another thread would be a data race on `queue`, and a hop through
        // the global pool per request: `Task { @LoopActor in ... }` alone starts there
        // (this check stopped it); `Task(executorPreference:)` does not.
        guard pthread_equal(pthread_self(), loopThread) != 0 else { fatalError("a job enqueued off the loop thread") }
        queue.append(UnownedJob(job))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    func drain() {
        while !queue.isEmpty {
            let jobs = queue
            queue.removeAll(keepingCapacity: true)
            for job in jobs { job.runSynchronously(on: asUnownedSerialExecutor()) }
        }
    }
}

let loopExecutor = LoopExecutor()

@globalActor actor LoopActor {
    static let shared = LoopActor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { loopExecutor.asUnownedSerialExecutor() }
}

@inline(never) func work(_ n: Int) -> Int { n &* 31 &+ 7 }

/// A statement whose answer is at hand (SQLite): no suspension.
@LoopActor @inline(never) func statementAtHand(_ n: Int) async -> Int { work(n) }

/// A statement whose answer comes later (a database over the network): one suspension,
/// resumed by the loop when the answer arrives.
@LoopActor @inline(never) func statementLater(_ n: Int) async -> Int {
    await withUnsafeContinuation { parked.append($0) } &+ work(n)
}

/// A request's handler: isolated to the loop, it awaits its statements.
@LoopActor @inline(never) func requestAtHand(_ n: Int) async { sink &+= await statementAtHand(n) }
@LoopActor @inline(never) func requestLater(_ n: Int) async { sink &+= await statementLater(n) }

func measure(_ name: String, requests: Int, perTurn: Int, _ turn: (Int) -> Void) {
    var best = Double.infinity
    for _ in 0..<5 {
        let start = ContinuousClock.now
        var done = 0
        while done < requests {
            turn(done)
            done += perTurn
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        best = min(best, seconds * 1e9 / Double(requests))
    }
    print("\(name): \(Int(best + 0.5)) ns a request (best of 5, \(requests) requests, \(perTurn) a turn)")
}

@main struct ExecutorBench {
    static func main() {
        let requests = 1_000_000
        for perTurn in [1, 50] {
            measure("a plain call", requests: requests, perTurn: perTurn) { first in
                for n in first..<first + perTurn { sink &+= work(n) }
            }
            measure("a Task on the loop's executor, the statement at hand", requests: requests, perTurn: perTurn) { first in
                for n in first..<first + perTurn {
                    Task(executorPreference: loopExecutor) { await requestAtHand(n) }
                }
                loopExecutor.drain()
            }
            measure("a Task on the loop's executor, the statement answered a turn later", requests: requests, perTurn: perTurn) { first in
                for n in first..<first + perTurn {
                    Task(executorPreference: loopExecutor) { await requestLater(n) }
                }
                loopExecutor.drain()
                let answers = parked
                parked.removeAll(keepingCapacity: true)
                for continuation in answers { continuation.resume(returning: 1) }
                loopExecutor.drain()
            }
        }
        if sink == 42 { print("") }
    }
}
