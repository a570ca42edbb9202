import HTTP

/// One parked call: its wait, its record, and the connection's parked request. It answers
/// once, whichever of wake-up, timeout or server stop comes first; a client that goes away
/// ends it without an answer. Either way `ended` gets it, with the record complete.
final class Waiter {
    let wait: Wait
    /// The key whose waiting calls this one counts toward, if an API key sent it.
    let keyID: String?
    private(set) var record: RequestRecord
    private let parked: ParkedRequest
    private let ended: (Waiter) -> Void

    init(wait: Wait, record: RequestRecord, keyID: String?, parked: ParkedRequest, ended: @escaping (Waiter) -> Void) {
        self.wait = wait
        self.keyID = keyID
        self.record = record
        self.parked = parked
        self.ended = ended
        // The parked request drops these closures when it ends, which breaks the cycle.
        parked.onTimeout = { [self] _ in answer(wait.expiryOnlyWaited ? .onlyWaited : .answered, wait.expire) }
        parked.onCancel = { [self] _ in
            self.record.ending = .clientWentAway
            self.ended(self)
        }
    }

    var isActive: Bool { parked.isActive }

    /// A wake-up: answers when `poll` has an answer.
    func poll() {
        guard parked.isActive else { return }
        answer(.answered, wait.poll)
    }

    private func answer(_ ending: RequestRecord.Ending, _ make: () throws -> HTTPResponse?) {
        let response: HTTPResponse
        do {
            guard let made = try make() else { return }
            response = made
        } catch {
            let failure = APIError.from(error)
            record.note(failure)
            response = failure.response
        }
        record.status = response.status
        record.ending = ending
        parked.respond(response)
        ended(self)
    }
}
