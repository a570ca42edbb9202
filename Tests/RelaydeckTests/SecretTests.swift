import DomainTestSupport
@testable import Relaydeck
import TestSupport
import Testing

@Suite struct SecretTests {
    private static let alphanumerics = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    @Test func accountTokensAndAPIKeysHaveTheirPrefixAndFortyThreeAlphanumerics() {
        let random = SeededRandom()
        for _ in 0..<100 {
            let token = Secret.generate(.accountToken, random: random)
            let key = Secret.generate(.apiKey, random: random)
            #expect(token.text.hasPrefix("mca_"))
            #expect(key.text.hasPrefix("mck_"))
            for secret in [token, key] {
                #expect(secret.text.utf8.count == 47)
                #expect(secret.text.dropFirst(4).allSatisfy { Self.alphanumerics.contains($0) })
            }
        }
    }

    @Test func eachByteBelow248MapsModuloSixtyTwo() {
        let secret = Secret.generate(.apiKey, random: ScriptedRandom(Array(0...61) + Array(62...123)))
        #expect(secret.text == "mck_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg")
    }

    /// 248...255 would make `byte % 62` favour the first eight characters.
    @Test func bytesFrom248UpAreSkipped() {
        let secret = Secret.generate(.accountToken, random: ScriptedRandom([248, 255, 61, 250, 123]))
        #expect(secret.text == "mca_" + String(repeating: "z", count: 43))
    }

    @Test func displayPrefixAndLastFourComeFromTheText() {
        let secret = Secret(text: "mck_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg")
        #expect(secret.displayPrefix == "mck_0123")
        #expect(secret.last4 == "defg")
    }

    /// Expected values from `printf %s ... | sha256sum`.
    @Test func hashIsTheSHA256OfTheText() {
        #expect(hex(Secret(text: "mca_abc").hash) == "6b769ffd3ea3afe90aea8a9e540ae63c3eabab8e5e019f452c1d32f0a0438723")
        #expect(hex(Secret(text: "mck_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg").hash)
            == "b5f74305fa2e97d1af7e6daf58aaaaa1e9c9a380031748103bb44349b8be00b7")
    }

    @Test func kindComesFromThePrefix() {
        #expect(Secret.kind(of: "mca_abc") == .accountToken)
        #expect(Secret.kind(of: "mck_abc") == .apiKey)
        #expect(Secret.kind(of: "mca_") == .accountToken)
        #expect(Secret.kind(of: "mcx_abc") == nil)
        #expect(Secret.kind(of: "MCA_abc") == nil)
        #expect(Secret.kind(of: "mca") == nil)
        #expect(Secret.kind(of: " mca_abc") == nil)
        #expect(Secret.kind(of: "") == nil)
        #expect(Secret.kind(of: "mc") == nil)
        #expect(Secret.kind(of: "ｍca_abc") == nil)  // a full-width m: other bytes
        #expect(Secret.kind(of: "mck_abc".dropFirst()) == nil)
        #expect(Secret.kind(of: "xmck_abc".dropFirst()) == .apiKey)  // a slice, not at offset 0
    }

    private func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}
