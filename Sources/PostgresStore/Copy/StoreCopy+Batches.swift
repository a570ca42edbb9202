import Postgres
import SQLite

// The copy itself: rows read from the snapshot one at a time, checked and counted, and sent as
// batches of parameterized INSERTs, `Limits.maxBatchesInFlight` at most waiting for answers.
// Each answer reads more (`pump`), so the file is read no faster than PostgreSQL stores.
extension StoreCopy {
    func pump() {
        guard !failed else { return }
        while !readingDone && batchesSent - batchesAnswered < limits.maxBatchesInFlight {
            do {
                if let batch = try nextBatch() {
                    send(batch)
                } else {
                    readingDone = true
                }
            } catch {
                return fail(error)
            }
        }
        reportCopiedTables()
        if readingDone && batchesSent == batchesAnswered { afterCopy() }
    }

    /// Sends one batch inside the transaction; a failure ends the copy.
    func send(_ statements: [PostgresQuery]) {
        batchesSent += 1
        connection.run(statements) { result in
            self.batchesAnswered += 1
            switch result {
            case .failure(let error):
                return self.fail(.postgres(error))
            case .success(let batch):
                if let error = batch.firstError { return self.fail(.postgres(error)) }
                guard batch.transactionStatus == .inTransaction else {
                    return self.fail(.postgres(PostgresError(.mismatch, "the copy's transaction ended before its COMMIT")))
                }
            }
            self.pump()
        }
    }

    /// The next batch of rows of one table, or nil once every table is read. A table read to
    /// its end is noted with its last batch, so that it is reported once that one is answered.
    private func nextBatch() throws(StoreCopyError) -> [PostgresQuery]? {
        while tableIndex < plan.count {
            let table = plan[tableIndex]
            if reader == nil {
                do {
                    reader = try snapshot.rows(of: table.source, withRowid: table.withRowid)
                } catch {
                    throw .sqlite(error)
                }
                rowNumber = 0
            }
            var statements: [PostgresQuery] = []
            var bytes = 0
            var ended = false
            while statements.count < limits.maxRowsPerBatch && bytes < limits.maxBatchBytes {
                let row: [StoredValue]?
                do {
                    row = try reader?.next()
                } catch {
                    throw .sqlite(error)
                }
                guard let row else {
                    ended = true
                    break
                }
                rowNumber += 1
                let values = try convert(row, of: table)
                tallies[tableIndex].checksum.add(row)
                statements.append(PostgresQuery(table.insertSQL, values))
                bytes += Self.size(of: row)
            }
            if ended {
                readTables.append((tableIndex, statements.isEmpty ? batchesSent - 1 : batchesSent))
                reader = nil
                tableIndex += 1
            }
            if !statements.isEmpty { return statements }
        }
        return nil
    }

    /// The row as parameters, or why PostgreSQL cannot hold it as the schema says; notes the
    /// largest value of each identity column.
    private func convert(_ row: [StoredValue], of table: CopyTable) throws(StoreCopyError) -> [PostgresValue] {
        var values: [PostgresValue] = []
        values.reserveCapacity(row.count)
        for (position, value) in row.enumerated() {
            let column = table.columns[position]
            switch (value, column.kind) {
            case (.null, _):
                values.append(.null)
            case (.integer(let number), .integer):
                if table.identityPositions.contains(position) {
                    tallies[tableIndex].largest[position] = max(tallies[tableIndex].largest[position] ?? number, number)
                }
                values.append(.integer(number))
            case (.text(let bytes), .text):
                guard !bytes.contains(0) else {
                    throw unreadable(table, row, column.name, "the text holds a NUL character, which PostgreSQL's text cannot hold")
                }
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw unreadable(table, row, column.name, "the text is not valid UTF-8")
                }
                values.append(.text(text))
            case (.blob(let bytes), .blob):
                values.append(.bytes(bytes))
            default:
                throw unreadable(table, row, column.name, "holds a \(Self.kindName(value)) where the schema has \(column.kind.rawValue)")
            }
        }
        return values
    }

    private func unreadable(_ table: CopyTable, _ row: [StoredValue], _ column: String, _ problem: String) -> StoreCopyError {
        let name: String
        if table.withRowid, case .integer(let rowid)? = row.first {
            name = "rowid \(rowid)"
        } else {
            name = "row \(rowNumber)"
        }
        return .unreadableValue(table: table.name, row: name, column: column, problem: problem)
    }

    /// Reports, in order, the tables whose last batch has been answered.
    private func reportCopiedTables() {
        while let first = readTables.first, first.lastBatch < batchesAnswered {
            readTables.removeFirst()
            let copied = TableCopied(table: plan[first.index].name, rows: tallies[first.index].checksum.rows)
            reported.append(copied)
            onTableCopied?(copied)
        }
    }

    private static func size(of row: [StoredValue]) -> Int {
        row.reduce(0) { total, value in
            switch value {
            case .null: total + 4
            case .integer, .real: total + 24
            case .text(let bytes), .blob(let bytes): total + 4 + bytes.count
            }
        }
    }

    private static func kindName(_ value: StoredValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer: "integer"
        case .real: "REAL"
        case .text: "text"
        case .blob: "blob"
        }
    }
}
