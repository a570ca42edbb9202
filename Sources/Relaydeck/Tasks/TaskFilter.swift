/// What `GET /v1/tasks` asks for (`rest-api.md#list-tasks`): nil is "any".
public struct TaskFilter: Sendable {
    public var keyID: String?
    public var statuses: [WorkTask.Status]?
    public var priorities: [WorkTask.Priority]?
    public var limit: Int
    /// The most task bytes one page holds (`WorkTask.pageBytes` each): a page that reaches it
    /// ends early, with a `next_cursor` (the contract's cursor allows a shorter page). A task
    /// larger than the whole budget still makes a page of its own.
    public var byteBudget: Int

    public static let defaultLimit = 100
    public static let maxLimit = 500
    /// A page's byte budget. 1 MiB keeps the work one list does on the loop at about a
    /// millisecond (reading and decoding its rows; the JSON is written in pieces as the client
    /// reads), and what a client that never reads can hold at that, while a page of 500
    /// ordinary tasks (a few hundred bytes to a few KB each) still fits whole.
    public static let pageBytes = 1024 * 1024

    public init(keyID: String? = nil, statuses: [WorkTask.Status]? = nil, priorities: [WorkTask.Priority]? = nil,
                limit: Int = TaskFilter.defaultLimit, byteBudget: Int = TaskFilter.pageBytes) {
        self.keyID = keyID
        self.statuses = statuses
        self.priorities = priorities
        self.limit = limit
        self.byteBudget = byteBudget
    }

    /// `,todo,done,`: one bound text the SQL matches with `instr`, so the statement stays one
    /// constant whatever the filter.
    static func commaList(_ values: [String]?) -> String? {
        values.map { "," + $0.joined(separator: ",") + "," }
    }
}
