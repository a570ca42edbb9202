import HTTP
import JSON
import Relaydeck

/// `rest-api.md#keys`
extension APIHandler {
    func listKeys(_ exchange: inout Exchange) throws -> HTTPResponse {
        let keys = try services.keys.list(accountID: exchange.accountID)
        var writer = JSONWriter(capacity: 64 + keys.count * 300)
        writer.beginObject()
        writer.key("keys")
        writer.beginArray()
        for key in keys { key.write(to: &writer) }
        writer.endArray()
        writer.endObject()
        return .json(200, writer.bytes)
    }

    func createKey(_ exchange: inout Exchange) throws -> HTTPResponse {
        var body = BodyReader(exchange.body)
        body.require("label")
        let label = Self.label(from: &body)
        try body.check()
        let (key, secret) = try services.keys.create(accountID: exchange.accountID, label: label ?? "")
        return Self.created("key", key.write, secretKey: "secret", secret)
    }

    func updateKey(_ exchange: inout Exchange) throws -> HTTPResponse {
        var body = BodyReader(exchange.body)
        let label = Self.label(from: &body)
        try body.check()
        let key = try services.keys.update(accountID: exchange.accountID, keyID: exchange.parameters[0], label: label)
        var writer = JSONWriter(capacity: 320)
        key.write(to: &writer)
        return .json(200, writer.bytes)
    }

    func deleteKey(_ exchange: inout Exchange) throws -> HTTPResponse {
        try services.keys.delete(accountID: exchange.accountID, keyID: exchange.parameters[0])
        onDeletion?()
        return HTTPResponse(status: 204)
    }

    /// The label, normalized; a problem joins the others of the body.
    private static func label(from body: inout BodyReader) -> String? {
        guard let raw = body.string("label") else { return nil }
        switch Keys.normalizeLabel(raw) {
        case .success(let label):
            return label
        case .failure(let problem):
            body.add(problem)
            return nil
        }
    }
}
