#if canImport(Glibc)
import Glibc
#endif

/// The loop's thread as an executor for Swift concurrency: a task started with it as its
/// executor preference (`EventLoop.startTask`) runs its nonisolated async code here, on the
/// loop thread, between the loop's own work, so what the task touches (the store, the
/// connections) needs no lock and no `Sendable`, as everything else on the loop.
///
/// A job waits in a queue that the loop drains in the turn phase `tasks`, the first of a turn's
/// end: a task resumed by an event (a database's answer read in this turn) goes on in the same
/// turn, before its COMMIT. `startTask` drains at once as well, so a task whose awaits all
/// return at once (SQLite's) has ended when `startTask` returns. A job enqueued from another
/// thread (a continuation resumed by a helper thread) crosses over through the loop's handle.
///
/// Issue 25's plan (docs/architecture.md, "Next: the store on PostgreSQL") measured the cost:
/// about 0.5 µs a task whose awaits return at once, 0.7–0.8 µs with one suspension.
public final class LoopExecutor: TaskExecutor, @unchecked Sendable {
    // Written only on the loop thread (`enqueue` from another thread hands its job over).
    private var queue: [UnownedJob] = []
    private var draining = false
    /// `startTask` is making a task, and drains right after: no turn phase is needed for it.
    fileprivate var starting = false
    private let loopThread: pthread_t
    private unowned let loop: EventLoop

    init(loop: EventLoop) {
        self.loop = loop
        loopThread = pthread_self()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        guard pthread_equal(pthread_self(), loopThread) != 0 else {
            loop.handle.execute { [self] in self.append(job) }
            return
        }
        append(job)
    }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Jobs waiting to run.
    public var waitingCount: Int { queue.count }

    private func append(_ job: UnownedJob) {
        if queue.isEmpty && !draining && !starting {
            loop.atEndOfTurn(.tasks) { [self] in self.drain() }
        }
        queue.append(job)
    }

    /// Runs the waiting jobs, and those they enqueue, until none waits. Inside a job (a task
    /// that starts another) it does nothing: the drain running that job takes the new ones
    /// next, and no job runs inside another.
    func drain() {
        guard !draining else { return }
        draining = true
        defer { draining = false }
        let executor = asUnownedTaskExecutor()
        while !queue.isEmpty {
            let jobs = queue
            queue.removeAll(keepingCapacity: true)
            for job in jobs { job.runSynchronously(on: executor) }
        }
    }
}

extension EventLoop {
    /// Starts `body` as a task on the loop's thread (`LoopExecutor`) and runs it at once, up
    /// to its first await that does not return at once: with SQLite, whose awaits all return
    /// at once, the task has ended when this returns. Its rest runs on the loop too, in the
    /// turn that resumes it. Called inside another such task, the new one runs right after the
    /// caller's job, not inside it.
    ///
    /// `body` is neither `Sendable` nor `sending`: it uses what the loop owns (the handler,
    /// the store), as every callback of the loop does, and it runs on the loop thread only.
    /// The task's executor preference puts every nonisolated async function it calls on the
    /// loop's executor, and the project has no actor that would take it elsewhere; a job
    /// enqueued from another thread is handed to the loop before it runs. So the one unchecked
    /// crossing is here, into `Task`'s initializer, which cannot see that.
    public func startTask(_ body: @escaping () async -> Void) {
        let loopBound = LoopBound(body)
        executor.starting = true
        Task(executorPreference: executor) { await loopBound.value() }
        executor.starting = false
        executor.drain()
    }

    /// The same for an object's `run`, on a task kept for such work (`TaskWorkers`): a task
    /// made once and resumed for each piece of work, not one made each time (a request's).
    public func startTask(_ task: any LoopTask) {
        executor.starting = true
        workers.start(task, executor: executor)
        executor.starting = false
        executor.drain()
    }
}

/// Work that runs as a task on the loop (`EventLoop.startTask`).
public protocol LoopTask: AnyObject {
    func run() async
}

/// A value that stays on the loop thread, passed through an API that asks for `Sendable`
/// (`startTask`'s task).
private struct LoopBound<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
