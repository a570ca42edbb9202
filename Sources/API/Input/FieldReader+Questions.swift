import Relaydeck

/// The fields of a question, read the same way for `POST /v1/questions`
/// (`rest-api.md#ask-a-question`) and for the MCP tool `ask_user` (`mcp.md#ask-the-person`).
extension FieldReader {
    /// The question to ask; nil when `prompt` is missing or invalid (a problem is noted).
    mutating func questionDraft() -> Questions.Draft? {
        require("prompt")
        let prompt = read("prompt", .text(.questionPrompt))
        let kindSent = has("kind")
        let kind = read("kind", FieldKind<Question.Kind>.choice)
        var options: [CheckedText]?
        switch kind ?? (kindSent ? nil : .confirm) {
        case .choice?:
            require("options")
            options = list("options", count: Questions.optionCount, distinct: true, .text(.questionOption))
        case let other?:
            ignore("options")
            if has("options") { add("options", "Not permitted for \(other.rawValue) questions.") }
        case nil:
            // An invalid kind is its own problem: the options cannot be judged without it.
            ignore("options")
        }
        let taskID = read("task_id", .string)
        let expiresIn = read("expires_in", .int(Questions.expiresIn)) ?? Questions.defaultExpiresIn
        guard let prompt else { return nil }
        return Questions.Draft(prompt: prompt, kind: kind ?? .confirm, options: options ?? [], taskID: taskID,
                               expiresIn: expiresIn)
    }
}
