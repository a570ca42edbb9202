import Foundation

/// The vendored nst/JSONTestSuite parsing corpus (Tests/Fixtures/json/test_parsing).
enum Corpus {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/json/test_parsing")
        .standardized

    /// Names of the corpus files whose name starts with `prefix`, sorted.
    static func files(_ prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ name: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
            return []
        }
        return [UInt8](data)
    }
}
