import Relaydeck

extension FieldReader {
    /// `scopes` of a key (issue 24): an array of 1 to 6 different scope names, each exactly as
    /// `Scope` spells it (`Tasks:Read` is not one). The count is checked before any element is
    /// looked at, so a list of 100,000 entries costs one comparison; nil when absent or invalid.
    mutating func scopes() -> ScopeSet? {
        list("scopes", count: 1...Scope.allCases.count, distinct: true, .choice).map { ScopeSet($0) }
    }
}
