import HTTP
import Relaydeck

/// A request held while work off the loop runs (`Pending`): nothing of the store is held
/// meanwhile. When the work hands back the rest of the endpoint, the rest runs as a write
/// request of its own (`runWithWriteLock`), after the credential is checked again.
final class PendingHold {
    private unowned let handler: APIHandler
    private let prepared: APIHandler.Prepared
    private var record: RequestRecord
    private let parked: ParkedRequest
    private let expired: APIError
    private var resumed = false

    init(handler: APIHandler, prepared: APIHandler.Prepared, record: RequestRecord, parked: ParkedRequest, expired: APIError) {
        self.handler = handler
        self.prepared = prepared
        self.record = record
        self.parked = parked
        self.expired = expired
        // The parked request drops these closures when it ends, which breaks the cycle.
        parked.onTimeout = { [self] _ in expire() }
        parked.onCancel = { [self] _ in clientWentAway() }
    }

    /// The work ended: run the rest, unless the request ended first (or this is a second call).
    func resume(_ rest: @escaping Pending.Rest) {
        guard parked.isActive, !resumed else { return }
        resumed = true
        handler.runWithWriteLock({ [unowned handler, prepared] record in
            await handler.runRest(rest, prepared, record: &record)
        }, prepared, record: record, parked: parked)
    }

    private func expire() {
        handler.deliver(.respond(handler.failure(expired, &record, prepared)), to: .parked(parked), record: record)
    }

    private func clientWentAway() {
        record.ending = .clientWentAway
        handler.finish(record)
    }
}

extension APIHandler {
    /// The rest of an endpoint that waited for work off the loop: the credential that passed the
    /// gate before must still be good (the key, the session or the account may have gone
    /// meanwhile: `401`, as a waiting call gets), then the rest, its errors answered as the
    /// endpoint's own.
    func runRest(_ rest: Pending.Rest, _ prepared: Prepared, record: inout RequestRecord) async -> Outcome {
        do {
            if prepared.endpoint.needsCredential {
                guard let principal = record.principal else { throw APIError.defect("a held request lost its principal") }
                try await Gate.readmit(prepared.request, as: principal, to: prepared.endpoint, context: context)
            }
            return try await rest()
        } catch {
            return .respond(failure(error, &record, prepared))
        }
    }
}
