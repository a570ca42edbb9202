/// The values (or members) of the parser's open containers, innermost last.
///
/// Closing a container takes its slice off the top: the elements are moved into the new
/// array as raw memory, so neither side counts references element by element, and the slots
/// left behind are refilled with a value that holds no reference before they are dropped.
/// When the slice is the whole stack (the outermost container, or a first child), the stack's
/// own storage is handed over. The unsafe code of the parser's containers is all here.
struct PendingStack<Element> {
    private var elements: [Element] = []
    /// What a moved-out slot holds until it is dropped: a value with no reference to count.
    private let filler: Element

    init(filler: Element) {
        self.filler = filler
    }

    var count: Int { elements.count }

    @inline(__always)
    mutating func push(_ element: Element) {
        elements.append(element)
    }

    /// Removes the elements from `start` to the top and returns them, in order.
    mutating func take(from start: Int) -> [Element] {
        if start == 0 {
            var whole: [Element] = []
            swap(&whole, &elements)
            return whole
        }
        let taken = elements.count - start
        guard taken > 1 else {
            // One element (deep nesting is made of these): an array literal, whose storage
            // type the compiler knows, is cheaper than the generic path below.
            return taken == 1 ? [elements.removeLast()] : []
        }
        let filler = filler
        let slice = elements.withUnsafeMutableBufferPointer { buffer in
            // `start` is within the buffer and `taken` elements follow it.
            let source = buffer.baseAddress.unsafelyUnwrapped + start
            let moved = [Element](unsafeUninitializedCapacity: taken) { target, initialized in
                target.baseAddress.unsafelyUnwrapped.moveInitialize(from: source, count: taken)
                initialized = taken
            }
            source.initialize(repeating: filler, count: taken)
            return moved
        }
        elements.removeLast(taken)
        return slice
    }
}
