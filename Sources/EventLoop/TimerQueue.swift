/// A scheduled callback. The handle stays valid after it fires or is cancelled, and may be
/// scheduled again, so a connection keeps one timer for its life and only moves it.
public final class LoopTimer {
    public internal(set) var deadline: Instant
    /// Position in the heap, or -1 while not scheduled.
    var heapIndex = -1
    /// Breaks deadline ties in scheduling order.
    var sequence: UInt64 = 0
    var callback: () -> Void

    init(deadline: Instant, callback: @escaping () -> Void) {
        self.deadline = deadline
        self.callback = callback
    }

    public var isScheduled: Bool { heapIndex >= 0 }
}

/// A binary min-heap of timers keyed by (deadline, sequence). Adding, cancelling and moving a
/// timer are O(log n) and allocate nothing once the heap has grown; the heap index lives in
/// the timer itself, so cancelling needs no search.
public struct TimerQueue {
    private var heap: [LoopTimer] = []
    private var nextSequence: UInt64 = 0

    public init() {}

    public var count: Int { heap.count }
    public var nextDeadline: Instant? { heap.first?.deadline }

    public mutating func schedule(_ timer: LoopTimer, at deadline: Instant) {
        if timer.isScheduled {
            remove(timer)
        }
        timer.deadline = deadline
        timer.sequence = nextSequence
        nextSequence &+= 1
        timer.heapIndex = heap.count
        heap.append(timer)
        siftUp(heap.count - 1)
    }

    public mutating func remove(_ timer: LoopTimer) {
        let index = timer.heapIndex
        guard index >= 0, index < heap.count, heap[index] === timer else { return }
        let last = heap.count - 1
        if index != last {
            swapAt(index, last)
        }
        heap.removeLast()
        timer.heapIndex = -1
        if index < heap.count {
            siftDown(index)
            siftUp(index)
        }
    }

    /// Marks the timers scheduled so far; `popExpired(now:scheduledBefore:)` leaves later ones.
    public var schedulingMark: UInt64 { nextSequence }

    /// Takes the earliest timer if it is due at `now` (and, with `mark`, was scheduled before
    /// that mark: a callback that re-arms its timer for "now" must not run again in the same
    /// pass, or the loop would never sleep).
    public mutating func popExpired(now: Instant, scheduledBefore mark: UInt64 = .max) -> LoopTimer? {
        guard let first = heap.first, first.deadline <= now, first.sequence < mark else { return nil }
        remove(first)
        return first
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        let x = heap[a], y = heap[b]
        return x.deadline < y.deadline || (x.deadline == y.deadline && x.sequence < y.sequence)
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        heap[a].heapIndex = a
        heap[b].heapIndex = b
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(child, parent) else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            let right = left + 1
            if right < heap.count && less(right, left) { smallest = right }
            guard less(smallest, parent) else { return }
            swapAt(smallest, parent)
            parent = smallest
        }
    }
}
