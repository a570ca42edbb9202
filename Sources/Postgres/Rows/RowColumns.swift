/// The columns of a statement's rows, shared by every row of it (and, for a prepared
/// statement, by every execution): positions by name are looked up once.
public final class RowColumns {
    public let descriptions: [ColumnDescription]
    private let positions: [String: Int]

    init(_ descriptions: [ColumnDescription]) {
        self.descriptions = descriptions
        var positions: [String: Int] = [:]
        // A name given twice is found at its first position, as SQL's own lookup would.
        for (index, column) in descriptions.enumerated() where positions[column.name] == nil {
            positions[column.name] = index
        }
        self.positions = positions
    }

    func position(_ name: String) -> Int? { positions[name] }

    var count: Int { descriptions.count }
}

@available(*, unavailable, message: "rows belong to the loop thread of their connection")
extension RowColumns: Sendable {}
