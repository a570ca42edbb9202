import JSON
import Relaydeck

/// Reads the fields of a JSON object body and collects every problem, so one `422` names all
/// of them: a wrong type, an unknown field, a field given twice.
struct BodyReader {
    private let object: JSONObject
    private let prefix: String
    /// False when the body (or nested value) was not an object: that is its one problem.
    private let isObject: Bool
    private var read: Set<String> = []
    private(set) var problems: [FieldProblem] = []

    /// `body` nil (none sent) reads as `{}`; anything but an object is one problem.
    init(_ body: JSON?, prefix: String = "") {
        self.prefix = prefix
        switch body {
        case nil:
            object = JSONObject()
            isObject = true
        case .object(let object)?:
            self.object = object
            isObject = true
        default:
            object = JSONObject()
            isObject = false
            problems.append(FieldProblem(prefix.isEmpty ? "body" : String(prefix.dropLast()), prefix.isEmpty ? "Must be a JSON object." : "Must be an object."))
        }
    }

    private func name(_ key: String) -> String { prefix + key }

    /// Whether the field was sent at all.
    func has(_ key: String) -> Bool { object[key] != nil }

    mutating func string(_ key: String) -> String? {
        read.insert(key)
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value else {
            problems.append(FieldProblem(name(key), "Must be a string."))
            return nil
        }
        return text
    }

    mutating func bool(_ key: String) -> Bool? {
        read.insert(key)
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else {
            problems.append(FieldProblem(name(key), "Must be true or false."))
            return nil
        }
        return flag
    }

    /// A nested object, read with its own reader; its problems join these with `finish`.
    mutating func object(_ key: String) -> BodyReader? {
        read.insert(key)
        guard let value = object[key] else { return nil }
        guard case .object = value else {
            problems.append(FieldProblem(name(key), "Must be an object."))
            return nil
        }
        return BodyReader(value, prefix: name(key) + ".")
    }

    /// Accepts a field without looking at it (e.g. `attestation` while App Attest is off).
    mutating func ignore(_ key: String) {
        read.insert(key)
    }

    mutating func require(_ key: String) {
        if isObject && object[key] == nil {
            problems.append(FieldProblem(name(key), "Required."))
        }
    }

    mutating func add(_ problem: FieldProblem) {
        problems.append(problem)
    }

    mutating func merge(_ nested: BodyReader) {
        var nested = nested
        problems.append(contentsOf: nested.finish())
    }

    /// Adds the unknown and repeated fields, and returns every problem.
    mutating func finish() -> [FieldProblem] {
        for key in object.duplicateKeys {
            problems.append(FieldProblem(name(key), "Appears more than once."))
        }
        for key in object.keys where !read.contains(key) {
            problems.append(FieldProblem(name(key), "Unknown field."))
        }
        return problems
    }

    /// Throws the 422 when anything was wrong.
    mutating func check() throws(APIError) {
        let all = finish()
        if !all.isEmpty { throw APIError.validation(all) }
    }
}
