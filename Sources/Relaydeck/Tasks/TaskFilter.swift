/// What `GET /v1/tasks` asks for (`rest-api.md#list-tasks`): nil is "any".
public struct TaskFilter: Sendable {
    public var keyID: String?
    public var statuses: [WorkTask.Status]?
    public var priorities: [WorkTask.Priority]?
    public var limit: Int

    public static let defaultLimit = 100
    public static let maxLimit = 500

    public init(keyID: String? = nil, statuses: [WorkTask.Status]? = nil, priorities: [WorkTask.Priority]? = nil,
                limit: Int = TaskFilter.defaultLimit) {
        self.keyID = keyID
        self.statuses = statuses
        self.priorities = priorities
        self.limit = limit
    }

    /// `,todo,done,`: one bound text the SQL matches with `instr`, so the statement stays one
    /// constant whatever the filter.
    static func commaList(_ values: [String]?) -> String? {
        values.map { "," + $0.joined(separator: ",") + "," }
    }
}
