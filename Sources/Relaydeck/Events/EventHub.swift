import SQLite

/// The one place committed changes are announced. A service records a change in its write
/// (`turn.record`, `UnitOfWork`), which plans it at once and publishes it here after the
/// COMMIT, so a subscriber never sees a change that might still roll back, and sees the
/// changes in the order they were committed. Subscribers run synchronously on the loop
/// thread: they must be quick (queue a frame, note a wake-up), never block. Loop thread only.
public final class EventHub {
    /// What turns changes into rows of the push outbox, inside the transaction that makes
    /// them (`PushPlanner`); nil when push is off.
    public var planner: (any ChangePlanner)?

    /// The unit of work calls this when a change is recorded: what it writes commits or
    /// rolls back with the change.
    func plan(_ changes: [Change], in db: Database) throws {
        guard let planner, !changes.isEmpty else { return }
        try planner.plan(changes, in: db)
    }

    public typealias Subscriber = (Change) -> Void

    /// A subscription's handle; `cancel` it to stop receiving.
    public struct Subscription: Hashable, Sendable {
        fileprivate let id: Int
    }

    private var subscribers: [(id: Int, deliver: Subscriber)] = []
    private var nextID = 0
    /// Changes published while a subscriber runs wait here, so each subscriber sees every
    /// change in order even when a subscriber publishes.
    private var queue: [Change] = []
    private var delivering = false

    public init() {}

    @discardableResult
    public func subscribe(_ deliver: @escaping Subscriber) -> Subscription {
        nextID += 1
        subscribers.append((nextID, deliver))
        return Subscription(id: nextID)
    }

    public func cancel(_ subscription: Subscription) {
        subscribers.removeAll { $0.id == subscription.id }
    }

    public var subscriberCount: Int { subscribers.count }

    /// After a COMMIT (`UnitOfWork.commit`): each subscriber gets `change`.
    func publish(_ change: Change) {
        queue.append(change)
        guard !delivering else { return }
        delivering = true
        defer { delivering = false }
        var index = 0
        while index < queue.count {
            let next = queue[index]
            index += 1
            for subscriber in subscribers {
                subscriber.deliver(next)
            }
        }
        queue.removeAll(keepingCapacity: true)
    }

    func publish(_ changes: [Change]) {
        for change in changes { publish(change) }
    }
}

/// Writes what a change must cause later (the pushes), in the change's own transaction.
public protocol ChangePlanner: AnyObject {
    func plan(_ changes: [Change], in db: Database) throws
}
