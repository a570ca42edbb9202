/// OAuth's `scope` (RFC 6749 3.3): names separated by single spaces, in any order.
extension ScopeSet {
    /// The set `text` names; nil when a word is no scope (OAuth's `invalid_scope`) or the
    /// text is not single-space separated. An empty text is the empty set.
    public init?(words text: String) {
        var scopes: [Scope] = []
        guard !text.isEmpty else {
            self.init(scopes)
            return
        }
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            guard let scope = Scope(rawValue: String(word)) else { return nil }
            scopes.append(scope)
        }
        self.init(scopes)
    }

    /// The names, single-space separated, in `Scope.allCases` order.
    public var words: String { names.joined(separator: " ") }
}
