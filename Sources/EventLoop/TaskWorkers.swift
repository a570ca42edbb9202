/// Tasks kept waiting for work on the loop, so that starting a `LoopTask` resumes one of them
/// instead of making a task: making one costs an allocation of the task and of its first
/// slab, and the lock of its executor preference's record, about ten thousand instructions,
/// which a request of a few tens of thousands would feel. A worker takes one piece of work
/// at a time; while it awaits something not at hand, the next piece goes to another worker,
/// made if none is idle. With SQLite, whose awaits return at once, one worker does all.
///
/// At most `maxIdle` wait: a worker that ends its work with that many idle ends its task.
/// Idle workers end with the process.
final class TaskWorkers {
    static let maxIdle = 64

    private var idle: [Worker] = []

    /// Workers waiting for work now.
    var idleCount: Int { idle.count }

    /// Gives `work` to an idle worker, or to a new one. The worker's job is enqueued on the
    /// loop's executor; the caller drains it.
    func start(_ work: any LoopTask, executor: LoopExecutor) {
        if let worker = idle.popLast() {
            worker.give(work)
            return
        }
        let worker = LoopBoundWorker(Worker(workers: self), first: work)
        Task(executorPreference: executor) { await worker.value.work(first: worker.first) }
    }

    /// Waits for the next piece of work; nil when enough workers wait already.
    fileprivate func next(for worker: Worker) async -> (any LoopTask)? {
        guard idle.count < Self.maxIdle else { return nil }
        idle.append(worker)
        return await worker.waitForWork()
    }
}

private final class Worker {
    private unowned let workers: TaskWorkers
    private var continuation: UnsafeContinuation<Void, Never>?
    private var given: (any LoopTask)?

    init(workers: TaskWorkers) {
        self.workers = workers
    }

    func work(first: any LoopTask) async {
        var current: (any LoopTask)? = first
        while let work = current {
            await work.run()
            current = await workers.next(for: self)
        }
    }

    func waitForWork() async -> (any LoopTask)? {
        await withUnsafeContinuation { continuation = $0 }
        defer { given = nil }
        return given
    }

    func give(_ work: any LoopTask) {
        given = work
        let waiting = continuation
        continuation = nil
        waiting?.resume()
    }
}

/// A worker passed into its task; it is used on the loop thread only (`startTask`).
private struct LoopBoundWorker: @unchecked Sendable {
    let value: Worker
    let first: any LoopTask
    init(_ value: Worker, first: any LoopTask) {
        self.value = value
        self.first = first
    }
}
