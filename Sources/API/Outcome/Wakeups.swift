import EventLoop

/// The parked calls, by what wakes them. A change announces its topics after it committed;
/// the waiters look again from the loop, after the request that made the change is answered,
/// so a `poll` never runs inside another request's transaction. Loop thread only.
final class Wakeups {
    private let loop: EventLoop
    private var waiters: [WakeTopic: [ObjectIdentifier: Waiter]] = [:]
    private var pending: [WakeTopic] = []
    private var scheduled = false

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Every parked call, topics or not.
    private var active: [ObjectIdentifier: Waiter] = [:]
    private var countByKey: [String: Int] = [:]

    /// Parked calls waiting now.
    var count: Int { active.count }

    /// Parked calls of one key waiting now.
    func count(of keyID: String) -> Int { countByKey[keyID] ?? 0 }

    func add(_ waiter: Waiter) {
        guard active.updateValue(waiter, forKey: ObjectIdentifier(waiter)) == nil else { return }
        if let keyID = waiter.keyID { countByKey[keyID, default: 0] += 1 }
        for topic in waiter.wait.topics {
            waiters[topic, default: [:]][ObjectIdentifier(waiter)] = waiter
        }
    }

    func remove(_ waiter: Waiter) {
        guard active.removeValue(forKey: ObjectIdentifier(waiter)) != nil else { return }
        for topic in waiter.wait.topics {
            waiters[topic]?.removeValue(forKey: ObjectIdentifier(waiter))
            if waiters[topic]?.isEmpty == true { waiters[topic] = nil }
        }
        if let keyID = waiter.keyID {
            countByKey[keyID, default: 1] -= 1
            if countByKey[keyID] == 0 { countByKey[keyID] = nil }
        }
    }

    /// Something under `topic` changed: its waiters look again, soon.
    func wake(_ topic: WakeTopic) {
        guard waiters[topic] != nil else { return }
        pending.append(topic)
        guard !scheduled else { return }
        scheduled = true
        loop.runSoon { [weak self] in self?.drain() }
    }

    private func drain() {
        scheduled = false
        let topics = pending
        pending = []
        for topic in topics {
            // A copy: an answered waiter leaves the table while we go through it.
            for waiter in Array(waiters[topic]?.values ?? [:].values) {
                waiter.poll()
            }
        }
    }
}
