import JSON
import Relaydeck

/// Reads the fields of a JSON object body, of a nested object, or of a query string, and
/// collects every problem with its full path (`settings.live_activities`, `options[2]`), so
/// one `422` names all of them: a wrong type, a value out of its range, a missing field, an
/// unknown field, a field given twice.
///
/// A body is strict (an unknown field is a problem); a query string ignores parameters it is
/// not asked about, as clients and proxies add their own (`?_=cachebuster`).
struct FieldReader {
    private let members: [(key: String, value: JSON)]
    private let fromQuery: Bool
    /// The path of this object, ending in `.` when nested (`settings.`).
    private let prefix: String
    /// False when the body (or nested value) was not an object: that is its one problem.
    private let isObject: Bool
    /// The names the code asked for: a few, so a list (a `Set` hashed each name with SipHash,
    /// 1,700 instructions a field of a task write).
    private var read: [String] = []
    private(set) var problems: [FieldProblem] = []

    /// `body` nil (none sent) reads as `{}`; anything but an object is one problem.
    init(body: JSON?, prefix: String = "") {
        self.prefix = prefix
        fromQuery = false
        switch body {
        case nil:
            members = []
            isObject = true
        case .object(let object)?:
            members = object.members
            isObject = true
        default:
            members = []
            isObject = false
            problems.append(FieldProblem(prefix.isEmpty ? "body" : String(prefix.dropLast()),
                                         prefix.isEmpty ? "Must be a JSON object." : "Must be an object."))
        }
    }

    /// The parameters of `query` (the text after `?`), percent-decoded.
    init(query: Substring?) {
        prefix = ""
        fromQuery = true
        isObject = true
        let parsed = QueryString.parse(query ?? "")
        members = parsed.parameters.map { (key: $0.name, value: JSON.string($0.value)) }
        problems = parsed.problems
    }

    private func path(_ name: String) -> String { prefix + name }

    /// Whether the field was sent at all (`null` included).
    func has(_ name: String) -> Bool { members.contains { $0.key == name } }

    /// The last value of `name`, marked as read; nil when absent.
    private mutating func take(_ name: String) -> JSON? {
        read.append(name)
        return members.last { $0.key == name }?.value
    }

    /// A field that must not be `null`; nil when absent or invalid.
    mutating func read<Value>(_ name: String, _ kind: FieldKind<Value>) -> Value? {
        guard let value = take(name) else { return nil }
        return convert(value, kind, at: path(name))
    }

    /// A field where `null` means "clear it" (`PATCH` of `progress`, `status_note`). An
    /// invalid value is `.absent` with its problem noted (the request fails anyway).
    mutating func readNullable<Value>(_ name: String, _ kind: FieldKind<Value>) -> FieldValue<Value> {
        guard let value = take(name) else { return .absent }
        if case .null = value { return .null }
        return convert(value, kind, at: path(name)).map { .value($0) } ?? .absent
    }

    /// A list: a JSON array in a body, comma-separated text in a query (`status=todo,done`).
    /// Each element is read as `kind` at `name[i]`; with `distinct`, a repeated element is a
    /// problem too.
    /// `commaText` also takes comma-separated text in a body (the MCP tool `list_tasks`:
    /// "One string with commas between the values is also accepted", `mcp.md#task-tools`).
    mutating func list<Value: Equatable>(_ name: String, count: ClosedRange<Int>, distinct: Bool = false,
                                         commaText: Bool = false, _ kind: FieldKind<Value>) -> [Value]? {
        guard let value = take(name) else { return nil }
        let elements: [JSON]
        switch value {
        case .array(let array) where !fromQuery:
            elements = array
        case .string(let text) where fromQuery || commaText:
            elements = text.split(separator: ",", omittingEmptySubsequences: false).map { .string(String($0)) }
        default:
            problems.append(FieldProblem(path(name), fromQuery ? "Must be a list." : commaText ? "Must be an array or a comma-separated string." : "Must be an array."))
            return nil
        }
        guard count.contains(elements.count) else {
            problems.append(FieldProblem(path(name), "Must have \(TextRules.grouped(count.lowerBound)) to \(TextRules.grouped(count.upperBound)) items."))
            return nil
        }
        var values: [Value] = []
        var valid = true
        for (index, element) in elements.enumerated() {
            let at = "\(path(name))[\(index)]"
            guard let converted = convert(element, kind, at: at) else {
                valid = false
                continue
            }
            if distinct && values.contains(converted) {
                problems.append(FieldProblem(at, "Repeats an earlier item."))
                valid = false
            }
            values.append(converted)
        }
        return valid ? values : nil
    }

    /// A nested object, read with its own reader; its problems join these with `merge`.
    mutating func object(_ name: String) -> FieldReader? {
        guard let value = take(name) else { return nil }
        guard case .object = value, !fromQuery else {
            problems.append(FieldProblem(path(name), "Must be an object."))
            return nil
        }
        return FieldReader(body: value, prefix: path(name) + ".")
    }

    private mutating func convert<Value>(_ value: JSON, _ kind: FieldKind<Value>, at path: String) -> Value? {
        switch kind.read(value, fromQuery) {
        case .success(let converted):
            return converted
        case .failure(let message):
            problems.append(FieldProblem(path, message.text))
            return nil
        }
    }

    /// Accepts a field without looking at it (e.g. `attestation` while App Attest is off).
    mutating func ignore(_ name: String) {
        read.append(name)
    }

    mutating func require(_ name: String) {
        if isObject && !has(name) {
            problems.append(FieldProblem(path(name), "Required."))
        }
    }

    /// A problem found by the caller (a rule across fields), at `name` under this reader.
    mutating func add(_ name: String, _ message: String) {
        problems.append(FieldProblem(path(name), message))
    }

    mutating func merge(_ nested: FieldReader) {
        var nested = nested
        problems.append(contentsOf: nested.finish())
    }

    /// Up to this many members, `finish` compares them pair by pair instead of hashing.
    static let fewMembers = 16

    /// Adds the repeated fields (and, in a body, the unknown ones), and returns every problem.
    mutating func finish() -> [FieldProblem] {
        if members.count <= Self.fewMembers {
            // Each pair compared: cheaper than two hashed sets for the usual few fields.
            // A repeated name is reported once, at its second appearance, as below.
            for (index, member) in members.enumerated()
            where members[..<index].lazy.filter({ $0.key == member.key }).count == 1 {
                problems.append(FieldProblem(path(member.key), "Appears more than once."))
            }
        } else {
            var seen: Set<String> = []
            var reported: Set<String> = []
            for member in members where !seen.insert(member.key).inserted && reported.insert(member.key).inserted {
                problems.append(FieldProblem(path(member.key), "Appears more than once."))
            }
        }
        if !fromQuery {
            for member in members where !read.contains(member.key) {
                problems.append(FieldProblem(path(member.key), "Unknown field."))
            }
        }
        return problems
    }

    /// Throws the `422` when anything was wrong.
    mutating func check() throws(APIError) {
        let all = finish()
        if !all.isEmpty { throw APIError.validation(all) }
    }
}
