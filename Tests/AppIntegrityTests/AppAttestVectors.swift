import Crypto
import Foundation
import Testing

/// The attestation files of Tests/Fixtures/app-attest (real Apple-signed data): the inputs
/// each one was made with, and its verification time.
struct AppAttestVector: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: String
    let appID: String
    let environment: String
    let keyID: [UInt8]
    let clientDataHash: [UInt8]
    let object: [UInt8]
    let verifyAt: Int64

    var testDescription: String { name }

    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/app-attest")

    /// The project's shared test data beside the repository (CI has it): it also holds the
    /// vectors whose licence keeps them out of the repository (a GPL-3.0 test, Apple's own
    /// documentation sample), which then run too.
    static let sharedFolder = folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/testdata/app-attest")

    static var hasSharedData: Bool {
        FileManager.default.fileExists(atPath: sharedFolder.appendingPathComponent("attestation").path)
    }

    /// Every attestation of `subfolder` (`attestation` or `negative`), from the repository's
    /// fixtures and, when it is there, the shared test data (by file name, once each);
    /// assertions are for a later route and are left out.
    static func load(_ subfolder: String) -> [AppAttestVector] {
        var byName: [String: URL] = [:]
        for base in [sharedFolder, folder] {
            let directory = base.appendingPathComponent(subfolder)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasSuffix(".json") {
                byName[name] = directory.appendingPathComponent(name)
            }
        }
        return byName.keys.sorted().compactMap { name in
            guard let data = try? Data(contentsOf: byName[name]!),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  object["kind"] as? String == "attestation" else { return nil }
            return AppAttestVector(
                name: object["name"] as? String ?? name,
                expected: object["expected"] as? String ?? "",
                appID: object["app_id"] as? String ?? "",
                environment: object["environment"] as? String ?? "",
                keyID: Base64.decode(object["key_id_b64"] as? String ?? "") ?? [],
                clientDataHash: Base64.decode(object["client_data_hash_b64"] as? String ?? "") ?? [],
                object: Base64.decode(object["attestation_b64"] as? String ?? "") ?? [],
                verifyAt: (object["verify_at_unix"] as? NSNumber)?.int64Value ?? 0)
        }
    }

    static var rootPEM: String {
        (try? String(contentsOf: folder.appendingPathComponent("apple-app-attestation-root-ca.pem"), encoding: .utf8)) ?? ""
    }
}
