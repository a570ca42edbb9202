extension HTTPRequestHead {
    /// The first value of the field `name` (case-insensitive), OWS trimmed. Bytes that are
    /// not UTF-8 (obs-text) come back as U+FFFD.
    public func header(_ name: String) -> String? {
        guard let value = headerBytes(name) else { return nil }
        return String(decoding: value, as: UTF8.self)
    }

    /// The first value of the field `name` (case-insensitive) as bytes, without allocating.
    public func headerBytes(_ name: String) -> ArraySlice<UInt8>? {
        guard let i = fieldIndex(named: name, from: 0) else { return nil }
        let f = fieldRanges[i]
        return bytes[f.valueStart..<f.valueEnd]
    }

    /// Every value of the field `name` (case-insensitive), in the order sent.
    public func headers(_ name: String) -> [String] {
        var values: [String] = []
        var next = 0
        while let i = fieldIndex(named: name, from: next) {
            let f = fieldRanges[i]
            values.append(String(decoding: bytes[f.valueStart..<f.valueEnd], as: UTF8.self))
            next = i + 1
        }
        return values
    }

    /// Every field as sent (names in their original case), for logs and tests; allocates.
    public var fields: [(name: String, value: String)] {
        fieldRanges.map { f in
            (
                name: String(decoding: bytes[f.nameStart..<f.nameEnd], as: UTF8.self),
                value: String(decoding: bytes[f.valueStart..<f.valueEnd], as: UTF8.self)
            )
        }
    }

    /// The index of the first field named `name` at or after `start`.
    private func fieldIndex(named name: String, from start: Int) -> Int? {
        var name = name
        // Native Strings are contiguous UTF-8 already; only a bridged one would be copied.
        name.makeContiguousUTF8()
        let found = name.utf8.withContiguousStorageIfAvailable { wanted -> Int? in
            bytes.withUnsafeBytes { p -> Int? in
                var i = start
                while i < fieldRanges.count {
                    let f = fieldRanges[i]
                    if ASCII.equalsIgnoringCase(UnsafeRawBufferPointer(rebasing: p[f.nameStart..<f.nameEnd]), wanted) {
                        return i
                    }
                    i += 1
                }
                return nil
            }
        }
        return found ?? nil
    }
}
