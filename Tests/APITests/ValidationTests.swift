import HTTP
import JSON
import Relaydeck
import Testing

/// 422: every problem of a body in one answer, names sorted, nested names dotted.
@Suite struct ValidationTests {
    private func send(_ api: APIHarness, _ method: String, _ path: String, _ token: String, _ body: String) throws -> Answer {
        try api.send(method, path, [bearer(token)], body: body)
    }

    @Test(arguments: [
        (#"{}"#, [("label", "Required.")]),
        (#"{"label": null}"#, [("label", "Must be a string.")]),
        (#"{"label": 5}"#, [("label", "Must be a string.")]),
        (#"{"label": ["a"]}"#, [("label", "Must be a string.")]),
        (#"{"label": ""}"#, [("label", "Must be 1 to 40 characters.")]),
        (#"{"label": " \n\t "}"#, [("label", "Must be 1 to 40 characters.")]),
        (#"{"label": "12345678901234567890123456789012345678901"}"#, [("label", "Must be 1 to 40 characters.")]),
        (#"{"label": "bell\u0007"}"#, [("label", "Must not contain control characters.")]),
        (#"{"label": "del\u007f"}"#, [("label", "Must not contain control characters.")]),
        (#"{"label": "ok", "colour": "red"}"#, [("colour", "Unknown field.")]),
        (#"{"label": "a", "label": "b"}"#, [("label", "Appears more than once.")]),
        (#"{"zeta": 1, "label": 2, "alpha": 3}"#, [("alpha", "Unknown field."), ("label", "Must be a string."), ("zeta", "Unknown field.")]),
        (#"{"b": 1, "a": 2, "b": 3}"#, [("a", "Unknown field."), ("b", "Appears more than once."), ("label", "Required.")]),
        (#"{"label": "a", "label": "b", "label": "c"}"#, [("label", "Appears more than once.")]),
        // Past `FieldReader.fewMembers` the repeats are found by hashing: the same answer.
        manyFieldsWithARepeat,
    ])
    func createKeyNamesEveryBadField(body: String, fields: [(String, String)]) throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let answer = try send(api, "POST", "/v1/keys", token, body)
        #expect(answer.status == 422)
        #expect(answer.headers == ["Content-Type: application/json"])
        #expect(answer.text == validationBody(fields))
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).text == #"{"keys":[]}"#)
    }

    /// 17 unknown fields (`f01` ...) and `b` three times: more than `FieldReader.fewMembers`.
    static var manyFieldsWithARepeat: (String, [(String, String)]) {
        let names: [String] = (1...17).map { number in number < 10 ? "f0\(number)" : "f\(number)" }
        let body = "{" + names.map { name in "\"\(name)\": 0, " }.joined() + #""b": 1, "b": 2, "b": 3}"#
        var fields: [(String, String)] = [("b", "Appears more than once.")]
        fields += names.map { name in (name, "Unknown field.") }
        fields.append(("label", "Required."))
        return (body, fields)
    }

    @Test func aFortyCharacterLabelIsAccepted() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let forty = String(repeating: "x", count: 40)
        #expect(try send(api, "POST", "/v1/keys", token, #"{"label": "\#(forty)"}"#).status == 201)
        #expect(try send(api, "POST", "/v1/keys", token, #"{"label": "\#(String(repeating: "é", count: 40))"}"#).status == 201)
    }

    @Test(arguments: [
        (#"{"label": 5}"#, [("label", "Must be a string.")]),
        (#"{"label": ""}"#, [("label", "Must be 1 to 40 characters.")]),
        (#"{"label": "x\u001b"}"#, [("label", "Must not contain control characters.")]),
        (#"{"prefix": "mck_"}"#, [("prefix", "Unknown field.")]),
    ])
    func updateKeyNamesEveryBadFieldAndChangesNothing(body: String, fields: [(String, String)]) throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let key = try api.createKey(token: token, label: "Cursor")
        let answer = try send(api, "PATCH", "/v1/keys/\(key.id)", token, body)
        #expect(answer.status == 422)
        #expect(answer.text == validationBody(fields))
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).text
            == #"{"keys":[\#(keyJSON(id: key.id, label: "Cursor", secret: key.secret))]}"#)
    }

    /// The fields are checked before the key is looked up.
    @Test func anInvalidBodyForAnUnknownKeyIsStillInvalid() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let answer = try send(api, "PATCH", "/v1/keys/key_01arz3ndektsv4rrffq69g5fav", token, #"{"label": 1}"#)
        #expect(answer.text == validationBody([("label", "Must be a string.")]))
    }

    @Test(arguments: [
        (#"{"settings": 5}"#, [("settings", "Must be an object.")]),
        (#"{"settings": null}"#, [("settings", "Must be an object.")]),
        (#"{"settings": [true]}"#, [("settings", "Must be an object.")]),
        (#"{"settings": {"live_activities": 1}}"#, [("settings.live_activities", "Must be true or false.")]),
        (#"{"settings": {"live_activities": "false"}}"#, [("settings.live_activities", "Must be true or false.")]),
        (#"{"settings": {"live_activities": null}}"#, [("settings.live_activities", "Must be true or false.")]),
        (#"{"settings": {"x": true}}"#, [("settings.x", "Unknown field.")]),
        (#"{"settings": {"live_activities": false, "live_activities": true}}"#,
         [("settings.live_activities", "Appears more than once.")]),
        (#"{"settings": {}, "settings": {}}"#, [("settings", "Appears more than once.")]),
        (#"{"live_activities": false}"#, [("live_activities", "Unknown field.")]),
        (#"{"z": 0, "settings": {"y": 1, "live_activities": 0}}"#,
         [("settings.live_activities", "Must be true or false."), ("settings.y", "Unknown field."), ("z", "Unknown field.")]),
    ])
    func updateAccountNamesNestedFields(body: String, fields: [(String, String)]) throws {
        let api = try APIHarness()
        let (id, token) = try api.createAccount()
        let answer = try send(api, "PATCH", "/v1/account", token, body)
        #expect(answer.status == 422)
        #expect(answer.text == validationBody(fields))
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).text == accountJSON(id: id))
    }

    @Test(arguments: ["[]", "[{}]", "\"label\"", "5", "true", "null"])
    func aBodyThatIsNotAnObjectIsOneProblem(body: String) throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let key = try api.createKey(token: token)
        let expected = validationBody([("body", "Must be a JSON object.")])
        for (method, path) in [("POST", "/v1/accounts"), ("PATCH", "/v1/account"), ("POST", "/v1/keys"),
                               ("PATCH", "/v1/keys/\(key.id)")] {
            let answer = try send(api, method, path, token, body)
            #expect(answer.status == 422, "\(method) \(path)")
            #expect(answer.text == expected, "\(method) \(path)")
        }
    }
}
