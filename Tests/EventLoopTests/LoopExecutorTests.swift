#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import EventLoop

/// What a test's tasks did, in order, and how many steps ran off the loop thread.
final class TaskTrace {
    var steps: [String] = []
    var offLoop = 0
    let thread = pthread_self()

    func note(_ step: String) {
        if pthread_equal(pthread_self(), thread) == 0 { offLoop += 1 }
        steps.append(step)
    }
}

/// A value the loop hands to a waiting task later: a continuation kept until `resume`
/// (`@unchecked`: one test resumes it from a thread of its own, after the task awaits it).
final class LaterAnswer: @unchecked Sendable {
    private var continuation: CheckedContinuation<Int, Never>?

    var isAwaited: Bool { continuation != nil }

    func value() async -> Int {
        await withCheckedContinuation { continuation = $0 }
    }

    func resume(_ value: Int) {
        let waiting = continuation
        continuation = nil
        waiting?.resume(returning: value)
    }
}

/// Awaits that return at once, as a SQLite statement's does.
func atHand(_ value: Int) async -> Int { value }

@Suite struct LoopExecutorTests {
    @Test func aTaskWhoseAwaitsReturnAtOnceHasEndedWhenStartTaskReturns() throws {
        let loop = try EventLoop()
        let trace = TaskTrace()
        loop.startTask {
            trace.note("start")
            let value = await atHand(41)
            trace.note("got \(value + 1)")
        }
        trace.note("after startTask")
        #expect(trace.steps == ["start", "got 42", "after startTask"])
        #expect(trace.offLoop == 0)
        #expect(loop.executor.waitingCount == 0)
    }

    @Test func aTaskResumedByAnEventGoesOnInThatTurnBeforeItsCommit() throws {
        let loop = try EventLoop()
        let trace = TaskTrace()
        let answer = LaterAnswer()
        loop.startTask {
            trace.note("asks")
            let value = await answer.value()
            trace.note("answered \(value)")
        }
        #expect(trace.steps == ["asks"])
        #expect(answer.isAwaited)
        // A timer stands for the event that brings the answer; the same event queues the
        // turn's COMMIT, which must come after the task's rest.
        loop.schedule(after: .zero) {
            answer.resume(7)
            loop.atEndOfTurn(.commit) { trace.note("commit") }
            trace.note("event ends")
        }
        loop.runOnce(maxWait: .milliseconds(50))
        #expect(trace.steps == ["asks", "event ends", "answered 7", "commit"])
        #expect(trace.offLoop == 0)
    }

    @Test func aContinuationResumedOnAnotherThreadGoesOnOnTheLoopThread() throws {
        let loop = try EventLoop()
        let trace = TaskTrace()
        let answer = LaterAnswer()
        var done = false
        loop.startTask {
            let value = await answer.value()
            trace.note("answered \(value)")
        }
        let helper = Thread { answer.resume(5) }
        helper.start()
        loop.run(until: {
            done = trace.steps.count == 1
            return done
        }, within: .seconds(10))
        helper.join()
        #expect(done)
        #expect(trace.steps == ["answered 5"])
        #expect(trace.offLoop == 0)
    }

    @Test func aTaskStartedInsideATaskRunsAfterItsCallersJobNotInsideIt() throws {
        let loop = try EventLoop()
        let trace = TaskTrace()
        loop.startTask {
            trace.note("outer starts")
            loop.startTask { trace.note("inner runs") }
            trace.note("outer ends")
        }
        #expect(trace.steps == ["outer starts", "outer ends", "inner runs"])
    }

    @Test func manyTasksWaitingAtOnceEachGoOnWhenTheirAnswerComes() throws {
        let loop = try EventLoop()
        let trace = TaskTrace()
        let answers = (0..<100).map { _ in LaterAnswer() }
        for (index, answer) in answers.enumerated() {
            loop.startTask {
                let value = await answer.value()
                trace.note("\(index):\(value)")
            }
        }
        #expect(trace.steps.isEmpty)
        loop.schedule(after: .zero) {
            for (index, answer) in answers.enumerated().reversed() { answer.resume(index * 2) }
        }
        loop.runOnce(maxWait: .milliseconds(50))
        #expect(trace.steps == (0..<100).reversed().map { "\($0):\($0 * 2)" })
    }
}

/// A plain thread for a test (the pool's threads are the test runner's).
final class Thread: @unchecked Sendable {
    private let body: @Sendable () -> Void
    private var thread: pthread_t?

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    func start() {
        let box = Unmanaged.passRetained(self)
        var created = pthread_t()
        let result = pthread_create(&created, nil, { raw in
            let me = Unmanaged<Thread>.fromOpaque(raw!).takeRetainedValue()
            me.body()
            return nil
        }, box.toOpaque())
        precondition(result == 0, "pthread_create failed")
        thread = created
    }

    func join() {
        if let thread { pthread_join(thread, nil) }
    }
}

/// A task that is an object (`LoopTask`), as a request's will be.
final class CountingTask: LoopTask {
    let answer: LaterAnswer
    var steps: [String] = []

    init(answer: LaterAnswer) { self.answer = answer }

    func run() async {
        steps.append("runs")
        steps.append("got \(await answer.value())")
    }
}

@Suite struct LoopTaskTests {
    @Test func anObjectsRunStartsAtOnceAndGoesOnWhenItsAnswerComes() throws {
        let loop = try EventLoop()
        let task = CountingTask(answer: LaterAnswer())
        loop.startTask(task)
        #expect(task.steps == ["runs"])
        #expect(loop.executor.waitingCount == 0)
        loop.schedule(after: .zero) { task.answer.resume(3) }
        loop.runOnce(maxWait: .milliseconds(50))
        #expect(task.steps == ["runs", "got 3"])
    }
}

/// The tasks `startTask(_: LoopTask)` keeps for its work (`TaskWorkers`).
@Suite struct TaskWorkersTests {
    @Test func aWorkerThatEndedItsWorkTakesTheNextInsteadOfANewTask() throws {
        let loop = try EventLoop()
        let first = CountingTask(answer: LaterAnswer())
        loop.startTask(first)
        #expect(loop.workers.idleCount == 0)
        first.answer.resume(1)
        loop.runOnce(maxWait: .zero)
        #expect(first.steps == ["runs", "got 1"])
        #expect(loop.workers.idleCount == 1)

        let second = CountingTask(answer: LaterAnswer())
        loop.startTask(second)
        // The idle worker took it: none is left idle while it waits.
        #expect(second.steps == ["runs"])
        #expect(loop.workers.idleCount == 0)
        second.answer.resume(2)
        loop.runOnce(maxWait: .zero)
        #expect(second.steps == ["runs", "got 2"])
        #expect(loop.workers.idleCount == 1)
    }

    @Test func whileOneWaitsTheNextGoesToAnotherWorker() throws {
        let loop = try EventLoop()
        let tasks = (0..<3).map { _ in CountingTask(answer: LaterAnswer()) }
        for task in tasks { loop.startTask(task) }
        #expect(tasks.allSatisfy { $0.steps == ["runs"] })
        for (index, task) in tasks.enumerated().reversed() { task.answer.resume(index) }
        loop.runOnce(maxWait: .zero)
        #expect(tasks.map(\.steps.last) == ["got 0", "got 1", "got 2"])
        #expect(loop.workers.idleCount == 3)
    }

    @Test func atMostMaxIdleWorkersWaitAfterABurst() throws {
        let loop = try EventLoop()
        let burst = TaskWorkers.maxIdle + 36
        let tasks = (0..<burst).map { _ in CountingTask(answer: LaterAnswer()) }
        for task in tasks { loop.startTask(task) }
        for task in tasks { task.answer.resume(0) }
        loop.runOnce(maxWait: .zero)
        #expect(tasks.allSatisfy { $0.steps == ["runs", "got 0"] })
        #expect(loop.workers.idleCount == TaskWorkers.maxIdle)
    }

    @Test func workThatAwaitsNothingRunsOnOneWorker() throws {
        let loop = try EventLoop()
        final class AtOnce: LoopTask {
            var runs = 0
            func run() async { runs += await atHand(1) }
        }
        let task = AtOnce()
        for _ in 0..<1000 { loop.startTask(task) }
        #expect(task.runs == 1000)
        #expect(loop.workers.idleCount == 1)
    }
}
