/// How much of a client's field names a `422` echoes. A name is the client's own text (an
/// unknown field may be called anything up to the body limit: a 900 KB name once gave a
/// 1.8 MB answer, in `message` and in `fields`), so the answer shows at most `maxListed`
/// fields, each name cut to `maxShown` code points with an ellipsis, and says how many more.
enum FieldNames {
    /// Longer than any field of the contract (`settings.live_activities` is 23).
    static let maxShown = 64
    /// A request with more problems than this is not one a person corrects field by field.
    static let maxListed = 20

    /// `name`, or its first `maxShown` code points and `…`. Counting stops at the bound, so a
    /// huge name costs no more than a short one.
    static func shown(_ name: String) -> String {
        if name.utf8.count <= maxShown { return name }
        let scalars = name.unicodeScalars
        guard let end = scalars.index(scalars.startIndex, offsetBy: maxShown, limitedBy: scalars.endIndex),
              end != scalars.endIndex else { return name }
        return String(scalars[..<end]) + "…"
    }
}
