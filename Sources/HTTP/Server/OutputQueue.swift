import EventLoop
import Transports

/// The bytes a connection has not sent yet, as a queue of chunks that leave with vectored
/// writes. Heads and small bodies are copied into an open chunk, so a burst of small pipelined
/// answers goes out from one buffer; a large body is queued as the very array the handler
/// made (held by reference, never copied), so an answer of many megabytes costs no copy and no
/// growing buffer. A chunk is freed as soon as it is out: a slow reader holds what it has not
/// read yet, not everything it was ever sent.
struct OutputQueue {
    /// A body at least this large gets a chunk of its own instead of being copied.
    static let ownChunkThreshold = 16 * 1024
    /// An open chunk takes no more bytes once it is this large, so memory is released while a
    /// long run of small answers is read.
    static let openChunkLimit = 64 * 1024

    private(set) var chunks: [[UInt8]] = []
    /// `chunks[..<first]` are sent (and emptied); `sentOfFirst` bytes of `chunks[first]` are.
    private var first = 0
    private var sentOfFirst = 0
    /// Whether the last chunk is ours to append to (not a body held by reference).
    private var lastIsOpen = false
    /// Unsent bytes.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Lets `write` append to the open chunk (a new one when needed, with room for about
    /// `expected` bytes).
    mutating func appendCopying(expected: Int, _ write: (inout [UInt8]) -> Void) {
        if !lastIsOpen || chunks[chunks.count - 1].count >= Self.openChunkLimit {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(expected)
            chunks.append(chunk)
            lastIsOpen = true
        }
        let last = chunks.count - 1
        let before = chunks[last].count
        write(&chunks[last])
        count += chunks[last].count - before
    }

    /// Queues `bytes`: a large array by reference, a small one copied into the open chunk.
    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if bytes.count >= Self.ownChunkThreshold {
            chunks.append(bytes)
            lastIsOpen = false
            count += bytes.count
        } else {
            appendCopying(expected: bytes.count) { $0.append(contentsOf: bytes) }
        }
    }

    /// Writes until the queue is empty or the transport takes no more; returns the bytes
    /// written.
    mutating func write(to transport: some Transport) throws(Errno) -> Int {
        var total = 0
        while count > 0 {
            let offered = offeredBytes()
            guard let written = try transport.write(chunks[first...], skipping: sentOfFirst) else { break }
            total += written
            consume(written)
            // A short write means the socket buffer is full: asking again would only return
            // EAGAIN. The writable event says when there is room.
            if written < offered { break }
        }
        return total
    }

    /// Drops everything unsent (the connection is closing).
    mutating func removeAll() {
        self = OutputQueue()
    }

    /// The bytes one `Socket.write` call is given.
    private func offeredBytes() -> Int {
        var bytes = -sentOfFirst
        for chunk in chunks[first...].prefix(Socket.maxWriteChunks) { bytes += chunk.count }
        return bytes
    }

    private mutating func consume(_ written: Int) {
        count -= written
        if count == 0 {
            // Everything is out: release the buffers, so an idle connection holds no memory.
            self = OutputQueue()
            return
        }
        var left = written
        while left > 0 {
            let rest = chunks[first].count - sentOfFirst
            guard left >= rest else {
                sentOfFirst += left
                return
            }
            left -= rest
            chunks[first] = []
            first += 1
            sentOfFirst = 0
        }
        // Sent chunks are empty arrays; drop their slots now and then, not on every write.
        if first >= 32 && first * 2 >= chunks.count {
            chunks.removeFirst(first)
            first = 0
        }
    }
}
