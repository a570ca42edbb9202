import SQLite

/// The one place committed changes are announced. A service records a change in its write
/// (`turn.record`, `UnitOfWork`), which plans it at once and publishes it here after the
/// COMMIT, so a subscriber never sees a change that might still roll back, and sees the
/// changes in the order they were committed. Subscribers run synchronously on the loop
/// thread: they must be quick (queue a frame, note a wake-up), never block. Loop thread only.
public final class EventHub {
    /// What turns changes into rows of the push outboxes, inside the transaction that makes
    /// them: `WebPushPlanner` always, `PushPlanner` (APNs) when its settings are given.
    public var planners: [any ChangePlanner] = []

    /// The unit of work calls this when a change is recorded: what it writes commits or
    /// rolls back with the change.
    func plan(_ changes: [Change], in db: any StoreSession) async throws {
        guard !changes.isEmpty else { return }
        for planner in planners { try await planner.plan(changes, in: db) }
    }

    /// `notify_user` (`mcp.md#notify-the-person`): each planner's visible notification, in one
    /// write (a savepoint of the request's transaction). Returns how many devices and browsers
    /// it goes to.
    public func notifyUser(_ store: any SessionStore, accountID: String, keyID: String, title: String, body: String,
                           taskID: String?) async throws -> Int {
        guard !planners.isEmpty else { return 0 }
        return try await store.writing { db in
            var sum = 0
            for planner in planners {
                sum += try await planner.message(db, accountID: accountID, keyID: keyID, title: title, body: body,
                                                 taskID: taskID)
            }
            return sum
        }
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

    /// After a COMMIT (`UnitOfWork.commit`, `KeptChanges.publish`): each subscriber gets
    /// `change`.
    public func publish(_ change: Change) {
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
    func plan(_ changes: [Change], in db: any StoreSession) async throws
    /// `notify_user`'s notification, inside the caller's write; how many it goes to.
    func message(_ db: any StoreSession, accountID: String, keyID: String, title: String, body: String,
                 taskID: String?) async throws -> Int
}
