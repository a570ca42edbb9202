@testable import API
import HTTP
import JSON
import Testing

/// The JSON-RPC envelope of a result: `resultType` and the server's name in `_meta` are
/// written where setting them on the members would put them, as they were before they were
/// written straight into the answer.
@Suite struct MCPReplyTests {
    static let server = MCPServerInfo(version: "1.2.3")

    /// What the envelope held when the members were changed first and then written whole.
    static func expected(id: JSON, _ members: JSONObject, modern: Bool) -> [UInt8] {
        var members = members
        if modern {
            members["resultType"] = .string("complete")
            var meta = members["_meta"]?.objectValue ?? JSONObject()
            meta[MCPRevision.serverInfoKey] = server.implementation
            members["_meta"] = .object(meta)
        }
        var writer = JSONWriter()
        writer.value(.object(JSONObject([("jsonrpc", .string("2.0")), ("id", id), ("result", .object(members))])))
        return writer.bytes
    }

    static let shapes: [JSONObject] = [
        JSONObject(),
        JSONObject([("content", .array([.string("a")])), ("isError", .bool(false))]),
        JSONObject([("content", .array([])), ("isError", .bool(true)),
                    ("_meta", .object(JSONObject([("relaydeck/code", .string("not_found"))])))]),
        JSONObject([("_meta", .object(JSONObject([(MCPRevision.serverInfoKey, .null), ("x", .number(JSONNumber(1)))]))),
                    ("resultType", .string("other")), ("tools", .array([]))]),
        JSONObject([("_meta", .string("not an object")), ("z", .null)]),
    ]

    @Test(arguments: shapes.indices)
    func aModernResultNamesTheServerWhereTheMembersWouldHaveIt(_ shape: Int) throws {
        for revision in [MCPRevision.v2026_07_28, .v2025_11_25, .v2025_03_26] {
            let response = MCPReply.result(id: .number(JSONNumber(7)), revision: revision, server: Self.server.implementationText,
                                           MCPResult(Self.shapes[shape]))
            #expect(response.body == Self.expected(id: .number(JSONNumber(7)), Self.shapes[shape], modern: revision.isModern))
        }
    }

    @Test func thePrewrittenMemberGoesInAsItIs() throws {
        let members = JSONObject([("content", .array([])), ("structuredContent", .null), ("isError", .bool(false))])
        let response = MCPReply.result(id: .string("a"), revision: .v2026_07_28, server: Self.server.implementationText,
                                       MCPResult(members, prewritten: .init(key: "structuredContent", json: Array(#"{"id":1}"#.utf8))))
        var withValue = members
        withValue["structuredContent"] = .object(JSONObject([("id", .number(JSONNumber(1)))]))
        #expect(response.body == Self.expected(id: .string("a"), withValue, modern: true))
    }
}
