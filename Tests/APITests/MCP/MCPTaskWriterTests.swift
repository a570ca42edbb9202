@testable import API
import JSON
import Relaydeck
import Testing

/// `mcp.md#tools`: a Task in a tool result is the REST Task object, member for member and in
/// its order, then `created_at_iso`, `updated_at_iso` and `completed_at_iso`. `MCPTask` writes
/// it once from the task; these tests hold it to what the REST writer, parsed and given the
/// three times, gives (the way the tools wrote it before).
@Suite struct MCPTaskWriterTests {
    private static func task(completedAt: Int64?, seenAt: Int64?, progress: Int? = nil, statusNote: String? = nil,
                             host: String? = nil, description: String = "") -> WorkTask {
        WorkTask(id: "tsk_01", accountID: "acc_01", keyID: "key_01", title: "Ship \"it\" \u{e9}", description: description,
                 status: completedAt == nil ? .inProgress : .done, priority: .high, notify: true, progress: progress,
                 statusNote: statusNote, source: .agent, createdAt: 1_760_112_000_412, updatedAt: 1_760_112_300_900,
                 completedAt: completedAt, seenAt: seenAt, host: host)
    }

    static let tasks: [WorkTask] = [
        task(completedAt: nil, seenAt: nil),
        task(completedAt: nil, seenAt: 1_760_112_000_500, progress: 40, statusNote: "Half way\tthere"),
        task(completedAt: 1_760_112_300_900, seenAt: nil, progress: 100, host: "studio-mac"),
        task(completedAt: 1_760_112_300_900, seenAt: 1_760_112_400_000, description: "Line one\n\n  line \u{1F680} two\u{0}"),
    ]

    /// What the tools wrote before: the REST object, parsed, with the three members added.
    private static func restPlusISO(_ task: WorkTask) throws -> [UInt8] {
        var rest = JSONWriter()
        task.write(to: &rest)
        var object = try #require(try JSONParser.parse(rest.bytes).objectValue)
        object.members.append(("created_at_iso", .string(ISO8601.text(millis: task.createdAt))))
        object.members.append(("updated_at_iso", .string(ISO8601.text(millis: task.updatedAt))))
        object.members.append(("completed_at_iso", task.completedAt.map { .string(ISO8601.text(millis: $0)) } ?? .null))
        return JSON.object(object).encoded()
    }

    private static func written(_ task: WorkTask) -> [UInt8] {
        var writer = JSONWriter()
        MCPTask.write(task, to: &writer)
        return writer.bytes
    }

    @Test("A tool's task is the REST writer's bytes plus the three ISO times, with and without completed_at and seen_at",
          arguments: tasks)
    func theToolTaskIsTheRESTTaskPlusItsISOTimes(task: WorkTask) throws {
        let written = Self.written(task)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: try Self.restPlusISO(task), as: UTF8.self))
        var rest = JSONWriter()
        task.write(to: &rest)
        // The REST members come first, as REST writes them, byte for byte.
        #expect(written.starts(with: rest.bytes.dropLast()))
        let keys = try JSONParser.parse(written).objectValue?.keys ?? []
        #expect(keys == (try JSONParser.parse(rest.bytes).objectValue?.keys ?? []) + ["created_at_iso", "updated_at_iso", "completed_at_iso"])
    }

    @Test("completed_at_iso is null while the task is open, and the time of completed_at once it is closed")
    func completedAtISOFollowsCompletedAt() throws {
        let open = try JSONParser.parse(Self.written(Self.tasks[0]))
        #expect(open["completed_at_iso"] == .null && open["completed_at"] == .null)
        #expect(open["created_at_iso"]?.stringValue == "2025-10-10T16:00:00.412Z")
        #expect(open["updated_at_iso"]?.stringValue == "2025-10-10T16:05:00.900Z")
        let done = try JSONParser.parse(Self.written(Self.tasks[2]))
        #expect(done["completed_at_iso"]?.stringValue == "2025-10-10T16:05:00.900Z")
    }
}
