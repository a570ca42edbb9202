/// The scopes a credential holds, as bits (`Scope.bit`): what a key stores, what its
/// principal carries for every check, and what a later grant will intersect with its key's.
public struct ScopeSet: Sendable, Equatable, Hashable, Sequence {
    /// The stored form: one bit per scope, nothing else.
    public let bits: Int64

    /// Every scope: the account token's, and what a key made without `scopes` gets.
    public static let all = ScopeSet(Scope.allCases)

    public init(_ scopes: some Sequence<Scope>) {
        bits = scopes.reduce(0) { $0 | $1.bit }
    }

    /// The set stored as `bits`; nil when it has a bit no scope has (a store written by
    /// something else), so a reader never takes a power it cannot name.
    public init?(bits: Int64) {
        guard bits & ~Self.all.bits == 0 else { return nil }
        self.bits = bits
    }

    public func contains(_ scope: Scope) -> Bool {
        bits & scope.bit != 0
    }

    public var isEmpty: Bool { bits == 0 }

    /// The scopes both hold (a grant acting as a key gets no more than the key has).
    public func intersection(_ other: ScopeSet) -> ScopeSet {
        ScopeSet(validBits: bits & other.bits)
    }

    /// Those of `other` this set lacks.
    public func subtracting(_ other: ScopeSet) -> ScopeSet {
        ScopeSet(validBits: bits & ~other.bits)
    }

    private init(validBits: Int64) {
        bits = validBits
    }

    /// In `Scope.allCases` order, whatever order they were given in.
    public func makeIterator() -> IndexingIterator<[Scope]> {
        Scope.allCases.filter(contains).makeIterator()
    }

    /// The names, in `Scope.allCases` order.
    public var names: [String] { map(\.rawValue) }
}
