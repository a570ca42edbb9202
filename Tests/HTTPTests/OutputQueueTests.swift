#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Testing
@testable import HTTP
import Transports

@Suite struct OutputQueueTests {
    /// A connected pair of Unix stream sockets, the writing end non-blocking with a small
    /// buffer, so writes stop part-way.
    final class Pair {
        let writer: Int32
        let reader: Int32

        init() {
            var fds: [Int32] = [-1, -1]
            _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
            writer = fds[0]
            reader = fds[1]
            var size: Int32 = 4096
            setsockopt(writer, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
            _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            close(writer)
            close(reader)
        }

        func readAll() -> [UInt8] {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(reader, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return bytes }
                bytes.append(contentsOf: buffer[0..<n])
            }
        }
    }

    static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    @Test func smallPiecesShareAChunkAndALargeBodyIsQueuedAsTheSameArray() {
        var queue = OutputQueue()
        let body = Self.bytes(OutputQueue.ownChunkThreshold, seed: 1)
        queue.appendCopying(expected: 64) { $0.append(contentsOf: [1, 2, 3]) }
        queue.append([4, 5])
        queue.append(body)
        queue.append([6])
        #expect(queue.count == 6 + body.count)
        #expect(queue.chunks.count == 3)
        #expect(queue.chunks[0] == [1, 2, 3, 4, 5])
        // The body was not copied: the queue holds the caller's storage.
        let queued = queue.chunks[1].withUnsafeBufferPointer { $0.baseAddress }
        #expect(queued == body.withUnsafeBufferPointer { $0.baseAddress })
    }

    @Test func writesEveryByteInOrderAcrossPartialWritesAndManyChunks() throws {
        let pair = Pair()
        var queue = OutputQueue()
        var expected: [UInt8] = []
        // More chunks than one vectored write takes, of every kind, some over the open
        // chunk's limit.
        for i in 0..<40 {
            let size = [3, 200, OutputQueue.ownChunkThreshold + i, 70_000, 5][i % 5]
            let piece = Self.bytes(size, seed: UInt8(i))
            if i % 3 == 0 {
                queue.appendCopying(expected: size) { $0.append(contentsOf: piece) }
            } else {
                queue.append(piece)
            }
            expected += piece
        }
        #expect(queue.count == expected.count)
        let writer = PlainTransport(fd: pair.writer)
        var received: [UInt8] = []
        for _ in 0..<100_000 where !queue.isEmpty {
            _ = try queue.write(to: writer)
            received += pair.readAll()
        }
        received += pair.readAll()
        #expect(queue.isEmpty)
        #expect(queue.chunks.isEmpty)
        #expect(received == expected)
    }
}
