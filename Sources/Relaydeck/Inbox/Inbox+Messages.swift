import Clock
import SQLite

extension Inbox {
    /// Who a message goes to (`inbox.md#send-a-message`): the account names a key of its own;
    /// an agent names a different key of the same account by ID or by its exact label.
    public enum Recipient: Sendable {
        case keyID(String)
        case to(String)
    }

    /// Sends a message to a key's inbox. An unknown recipient, a label two keys have (with its
    /// own message), or the sender itself is `404`; a `taskID` the sender cannot read is `404` too.
    public func send(_ principal: Principal, to recipient: Recipient, text: CheckedText, taskID: String?) async throws -> InboxItem {
        let accountID = principal.accountID
        return try await store.writing(hub: hub, account: accountID) { db, turn in
            let keyID: String
            switch recipient {
            case .keyID(let id): keyID = try await Keys.fetch(db, accountID: accountID, keyID: id).id
            case .to(let name): keyID = try await Self.resolve(db, accountID: accountID, name, sender: principal.keyID)
            }
            if let taskID { _ = try await Tasks.fetch(db, principal, taskID: taskID) }
            try await store.quota.admit(db, accountID: accountID, growth: StorageQuota.bytes(text.value))
            var from = InboxItem.Sender.person
            if let sender = principal.keyID {
                from = .agent(keyID: sender, label: try await Keys.fetch(db, accountID: accountID, keyID: sender).label)
            }
            return try await add(db, turn, accountID: accountID, keyID: keyID, kind: .message, from: from, taskID: taskID,
                           text: text.value, actor: Tasks.actor(principal))
        }
    }

    /// `to`: a key ID, else an exact label that one live key has; never the sender.
    private static func resolve(_ db: any StoreSession, accountID: String, _ name: String, sender: String?) async throws -> String {
        let notFound = DomainError.notFound("Key not found.")
        let ambiguous = DomainError.notFound("Key not found: more than one key has this label. Send to the key ID instead.")
        var keyID: String
        do {
            keyID = try await Keys.fetch(db, accountID: accountID, keyID: name).id
        } catch DomainError.notFound {
            let matches = try await db.rows(InboxSQL.keysByLabel, [.text(accountID), .text(name)]) { try $0.text("id") }
            // `inbox.md#send-a-message` makes a shared label `404` like an unknown one; the
            // message says which it is, and what to send instead.
            guard matches.count < 2 else { throw ambiguous }
            guard let only = matches.first else { throw notFound }
            keyID = only
        }
        guard keyID != sender else { throw notFound }
        return keyID
    }
}
