@testable import API
import HTTP
import JSON
import Relaydeck
import Testing

/// The one catalogue: each error's status, code, message and headers, and the body they make.
@Suite struct APIErrorTests {
    private func text(_ error: APIError) -> String {
        String(decoding: error.response.body, as: UTF8.self)
    }

    private func headers(_ error: APIError) -> [String] {
        error.response.headers.map { "\($0.name): \($0.value)" }
    }

    @Test func domainErrorsMapToTheirStatusAndCode() {
        let notFound = APIError.from(DomainError.notFound("Key not found."))
        #expect(notFound.response.status == 404)
        #expect(text(notFound) == errorBody("not_found", "Key not found."))
        #expect(headers(notFound) == ["Content-Type: application/json"])

        let conflict = APIError.from(DomainError.conflict("An account can have 20 keys."))
        #expect(conflict.response.status == 409)
        #expect(text(conflict) == errorBody("conflict", "An account can have 20 keys."))
    }

    @Test func validationSortsFieldsAndKeepsTheFirstMessageOfEach() {
        let error = APIError.from(DomainError.validation([
            FieldProblem("title", "Must be a string."),
            FieldProblem("settings.live_activities", "Must be true or false."),
            FieldProblem("label", "Required."),
            FieldProblem("title", "Unknown field."),
        ]))
        #expect(error.response.status == 422)
        #expect(text(error) == validationBody([
            ("label", "Required."), ("settings.live_activities", "Must be true or false."), ("title", "Must be a string."),
        ]))
    }

    /// A 900 KB unknown field name is echoed cut to 64 code points and an ellipsis.
    @Test func aHugeFieldNameIsCutWithAnEllipsis() {
        let name = String(repeating: "n", count: 900_000)
        let error = APIError.validation([FieldProblem(name, "Unknown field.")])
        let cut = String(repeating: "n", count: 64) + "…"
        #expect(text(error) == #"{"error":{"code":"validation_failed","message":"Invalid fields: \#(cut).","fields":{"\#(cut)":"Unknown field."}}}"#)
        let exact = String(repeating: "é", count: 64)
        #expect(APIError.validation([FieldProblem(exact, "Unknown field.")]).fields.map(\.field) == [exact])
    }

    /// At most 20 fields are listed, the first in order, and the message says how many more.
    @Test func theListedFieldsAreBoundedAndTheRestCounted() {
        let problems = (0..<25_000).reversed().map { FieldProblem("f\($0)", "Unknown field.") }
        let error = APIError.validation(problems)
        let first = (0..<25_000).map { "f\($0)" }.sorted().prefix(20)
        #expect(error.fields.map(\.field) == Array(first))
        #expect(error.moreFields == 24_980)
        #expect(error.message == "Invalid fields: \(first.joined(separator: ", ")), and 24,980 more.")
        #expect(error.response.body.count < 1_000)
    }

    @Test func anUnavailableStoreIsServiceUnavailableWithRetryAfter() {
        let error = APIError.from(StoreError.unavailable(retryAfterSeconds: 1))
        #expect(error.response.status == 503)
        #expect(headers(error) == ["Content-Type: application/json", "Retry-After: 1"])
        #expect(text(error) == errorBody("unavailable", "The store is unavailable. Try again in 1 seconds."))
    }

    @Test func aStoreFailureAndAnUnknownErrorAreInternal() {
        struct Unexpected: Error {}
        for error in [APIError.from(StoreError.failure("SQLite error 1 (no such table: x)")), APIError.from(Unexpected())] {
            #expect(error.response.status == 500)
            #expect(headers(error) == ["Content-Type: application/json"])
            // The detail stays in the log.
            #expect(text(error) == errorBody("internal", "Internal server error."))
        }
    }

    @Test func anAPIErrorPassesThroughUnchanged() {
        let error = APIError.from(APIError.rateLimited(retryAfter: 7))
        #expect(error.response.status == 429)
        #expect(headers(error) == ["Content-Type: application/json", "Retry-After: 7"])
        #expect(text(error) == errorBody("rate_limited", "Too many requests. Try again in 7 seconds."))
    }

    /// Messages are JSON strings: quotes and control characters are escaped.
    @Test func messagesAreEscaped() {
        let error = APIError.from(DomainError.notFound("The \"x\"\nthing."))
        #expect(text(error) == #"{"error":{"code":"not_found","message":"The \"x\"\nthing."}}"#)
    }

    @Test(arguments: [
        (400, 400, "bad_request", "The request is malformed."),
        (408, 408, "bad_request", "The request took too long to arrive."),
        (413, 413, "bad_request", "The body is larger than 1 MB."),
        (414, 414, "bad_request", "The request target is too long."),
        (431, 431, "bad_request", "The request headers are too large."),
        (501, 501, "bad_request", "The transfer coding is not supported."),
        (505, 505, "bad_request", "The HTTP version is not supported."),
        (500, 500, "internal", "Internal server error."),
        (418, 400, "bad_request", "The request is malformed."),
    ])
    func theHTTPLayersRefusalsHaveTheirMessages(asked: Int, status: Int, code: String, message: String) throws {
        let api = try APIHarness()
        let response = api.handler.refusal(status: asked, reason: "ignored")
        #expect(response.status == status)
        #expect(response.headers.map { "\($0.name): \($0.value)" } == ["Content-Type: application/json"])
        #expect(String(decoding: response.body, as: UTF8.self) == errorBody(code, message))
    }

    @Test func tooManyConnectionsIsUnavailableWithRetryAfter() throws {
        let api = try APIHarness()
        let response = api.handler.refusal(status: 503, reason: "too many connections")
        #expect(response.status == 503)
        #expect(response.headers.map { "\($0.name): \($0.value)" } == ["Content-Type: application/json", "Retry-After: 1"])
        #expect(String(decoding: response.body, as: UTF8.self) == errorBody("unavailable", "The server has too many connections."))
    }
}
