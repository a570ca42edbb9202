import JSON
import Relaydeck

/// The kinds of the device and activity routes' fields: text with a fixed shape, refused with
/// a message that says the shape and never repeats the value.
extension FieldKind where Value == PushToken {
    /// Hexadecimal text of a push token (`rest-api.md#device`), lowercased.
    static var pushToken: FieldKind {
        shaped(PushToken.problem) { PushToken($0) }
    }
}

extension FieldKind where Value == String {
    /// `dev_` plus a lowercase UUID (`rest-api.md#device`).
    static var deviceID: FieldKind {
        shaped(DeviceID.problem) { DeviceID.isWellFormed($0) ? $0 : nil }
    }
}

extension FieldKind where Value == ActivityCursor {
    /// A `next_cursor` of `GET /v1/keys/{key_id}/activity`.
    static var activityCursor: FieldKind {
        shaped(ActivityCursor.problem) { ActivityCursor(text: $0) }
    }
}

extension FieldKind {
    /// A string that `parse` accepts; anything else (another JSON type too) is `problem`.
    static func shaped(_ problem: String, _ parse: @escaping (String) -> Value?) -> FieldKind {
        FieldKind { value, _ in
            guard case .string(let text) = value, let parsed = parse(text) else { return .failure(FieldMessage(problem)) }
            return .success(parsed)
        }
    }
}
