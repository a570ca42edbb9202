import HTTP
import JSON
import Relaydeck

/// `rest-api.md#accounts`
extension APIHandler {
    func createAccount(_ exchange: inout Exchange) throws -> HTTPResponse {
        try checkAppCode(exchange.request)
        var body = BodyReader(exchange.body)
        // App Attest is off in this version: the field is accepted and ignored
        // (`app-integrity.md#create-the-account`).
        body.ignore("attestation")
        try body.check()
        try takeAccountCreation(exchange.request)
        let (account, token) = try services.accounts.create()
        return Self.created("account", account.write, secretKey: "token", token)
    }

    func getAccount(_ exchange: inout Exchange) throws -> HTTPResponse {
        Self.accountResponse(try services.accounts.get(exchange.accountID))
    }

    func updateAccount(_ exchange: inout Exchange) throws -> HTTPResponse {
        var body = BodyReader(exchange.body)
        var liveActivities: Bool?
        if var settings = body.object("settings") {
            liveActivities = settings.bool("live_activities")
            body.merge(settings)
        }
        try body.check()
        return Self.accountResponse(try services.accounts.update(exchange.accountID, liveActivities: liveActivities))
    }

    func deleteAccount(_ exchange: inout Exchange) throws -> HTTPResponse {
        try services.accounts.delete(exchange.accountID)
        onDeletion?()
        return HTTPResponse(status: 204)
    }

    /// `201 {"<objectKey>": <object>, "<secretKey>": "<secret>"}`: the one answer that carries
    /// a secret, which the client sees this one time.
    static func created(_ objectKey: StaticString, _ write: (inout JSONWriter) -> Void,
                        secretKey: StaticString, _ secret: Secret) -> HTTPResponse {
        var writer = JSONWriter(capacity: 400)
        writer.beginObject()
        writer.key(objectKey)
        write(&writer)
        writer.key(secretKey)
        writer.string(secret.text)
        writer.endObject()
        return .json(201, writer.bytes)
    }

    static func accountResponse(_ account: Account) -> HTTPResponse {
        var writer = JSONWriter(capacity: 96)
        account.write(to: &writer)
        return .json(200, writer.bytes)
    }
}
