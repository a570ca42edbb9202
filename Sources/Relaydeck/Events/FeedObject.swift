import JSON

/// One object of a feed row, read member by member for `Change(feedBytes:)`; each refusal
/// names the member by its path (`change.task.title`), never its value.
struct FeedObject {
    let members: JSONObject
    let name: String

    init(_ json: JSON, path name: String) throws(ChangeFeedCodingError) {
        guard case .object(let members) = json else { throw ChangeFeedCodingError(.invalid(name)) }
        if let duplicate = members.firstDuplicateKey { throw ChangeFeedCodingError(.duplicateMember("\(name).\(duplicate)")) }
        self.members = members
        self.name = name
    }

    func path(_ key: String) -> String { "\(name).\(key)" }

    /// The member's value, `null` included; throws when it is not there.
    private func value(_ key: String) throws(ChangeFeedCodingError) -> JSON {
        guard let value = members[key] else { throw ChangeFeedCodingError(.missing(path(key))) }
        return value
    }

    /// The member's value, nil for `null`.
    private func nonNull(_ key: String) throws(ChangeFeedCodingError) -> JSON? {
        // Not `isNull ? nil : value`: JSON is ExpressibleByNilLiteral, so that `nil` would be
        // JSON's own null.
        let value = try value(key)
        if value.isNull { return Optional.none }
        return value
    }

    func text(_ key: String) throws(ChangeFeedCodingError) -> String {
        guard let text = try optionalText(key) else { throw ChangeFeedCodingError(.invalid(path(key))) }
        return text
    }

    func optionalText(_ key: String) throws(ChangeFeedCodingError) -> String? {
        guard let value = try nonNull(key) else { return nil }
        guard let text = value.stringValue else { throw ChangeFeedCodingError(.invalid(path(key))) }
        return text
    }

    func int64(_ key: String) throws(ChangeFeedCodingError) -> Int64 {
        guard let number = try optionalInt64(key) else { throw ChangeFeedCodingError(.invalid(path(key))) }
        return number
    }

    /// An integer within `Int64`; a fraction or a larger number is invalid, not rounded.
    func optionalInt64(_ key: String) throws(ChangeFeedCodingError) -> Int64? {
        guard let value = try nonNull(key) else { return nil }
        guard let number = value.int64Value else { throw ChangeFeedCodingError(.invalid(path(key))) }
        return number
    }

    func int(_ key: String) throws(ChangeFeedCodingError) -> Int {
        try Self.int(try int64(key), path(key))
    }

    static func int(_ value: Int64, _ path: String) throws(ChangeFeedCodingError) -> Int {
        guard let number = Int(exactly: value) else { throw ChangeFeedCodingError(.invalid(path)) }
        return number
    }

    func bool(_ key: String) throws(ChangeFeedCodingError) -> Bool {
        guard let flag = try value(key).boolValue else { throw ChangeFeedCodingError(.invalid(path(key))) }
        return flag
    }

    /// A text that must be one of `Value`'s raw values (a status, a priority, a kind).
    func choice<Value: RawRepresentable<String>>(_ key: String) throws(ChangeFeedCodingError) -> Value {
        guard let value = Value(rawValue: try text(key)) else { throw ChangeFeedCodingError(.invalid(path(key))) }
        return value
    }

    /// An array of texts.
    func texts(_ key: String) throws(ChangeFeedCodingError) -> [String] {
        guard let elements = try value(key).arrayValue else { throw ChangeFeedCodingError(.invalid(path(key))) }
        var texts: [String] = []
        texts.reserveCapacity(elements.count)
        for element in elements {
            guard let text = element.stringValue else { throw ChangeFeedCodingError(.invalid(path(key))) }
            texts.append(text)
        }
        return texts
    }

    func object(_ key: String) throws(ChangeFeedCodingError) -> FeedObject {
        guard let object = try optionalObject(key) else { throw ChangeFeedCodingError(.invalid(path(key))) }
        return object
    }

    /// An object, or nil for `null`.
    func optionalObject(_ key: String) throws(ChangeFeedCodingError) -> FeedObject? {
        guard let value = try nonNull(key) else { return nil }
        return try FeedObject(value, path: path(key))
    }

    /// An object, or nil when the member is not there (`previous`, written only when set).
    func absentOrObject(_ key: String) throws(ChangeFeedCodingError) -> FeedObject? {
        guard members[key] != nil else { return nil }
        return try object(key)
    }

    /// The member as an object when it is one, else nil (the actor: a name or `{"key": ...}`).
    func objectIfObject(_ key: String) throws(ChangeFeedCodingError) -> FeedObject? {
        let value = try value(key)
        guard case .object = value else { return nil }
        return try FeedObject(value, path: path(key))
    }
}
