/// The statements a connection has prepared by name, keyed by SQL text: the first use of a
/// text sends Parse and Describe with its execution, every later one only Bind and Execute.
/// A name is taken for good once its Parse is confirmed (its statement completed); a Parse
/// that failed or never ran (skipped after an error) frees the text again.
struct PreparedStatements {
    enum Plan: Equatable {
        /// Known: Bind and Execute only; the rows have these columns.
        case bind(name: String)
        /// Parse (and Describe) under this name now; "" for the unnamed statement, when the
        /// text is still waiting for its first Parse in flight or the cache is full.
        case parse(name: String)
    }

    private enum Entry {
        case pending(name: String)
        case prepared(name: String, columns: RowColumns)
    }

    private var entries: [String: Entry] = [:]
    private var nextNumber = 1
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func plan(_ sql: String) -> Plan {
        planWithColumns(sql).plan
    }

    /// The plan, and for a known statement its rows' columns: the text looked up once (it is
    /// hashed whole, and a statement's text runs to hundreds of bytes).
    mutating func planWithColumns(_ sql: String) -> (plan: Plan, columns: RowColumns?) {
        switch entries[sql] {
        case .prepared(let name, let columns)?: return (.bind(name: name), columns)
        case .pending?: return (.parse(name: ""), nil)
        case nil:
            guard entries.count < capacity else { return (.parse(name: ""), nil) }
            let name = "rd\(nextNumber)"
            nextNumber += 1
            entries[sql] = .pending(name: name)
            return (.parse(name: name), nil)
        }
    }

    func columns(_ sql: String) -> RowColumns? {
        if case .prepared(_, let columns)? = entries[sql] { return columns }
        return nil
    }

    /// The Parse of `name` went through, with rows of these columns.
    mutating func confirm(_ sql: String, name: String, columns: RowColumns) {
        guard !name.isEmpty, case .pending(name)? = entries[sql] else { return }
        entries[sql] = .prepared(name: name, columns: columns)
    }

    /// Forgets the text: its Parse failed or never ran, or the server no longer has the
    /// statement (`26000`) or its plan changed shape under a new schema (`0A000`). Its next
    /// use parses under a new name; an old name left on the server is never used again.
    mutating func forget(_ sql: String, name: String) {
        switch entries[sql] {
        case .pending(name)?, .prepared(name, _)?: entries[sql] = nil
        default: break
        }
    }

    /// Forgets the text if it is prepared, whatever its name.
    mutating func forgetPrepared(_ sql: String) {
        if case .prepared? = entries[sql] { entries[sql] = nil }
    }

    var count: Int { entries.count }
}
