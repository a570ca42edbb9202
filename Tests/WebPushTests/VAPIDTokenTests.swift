import Clock
import Crypto
import JSON
import Testing
@testable import WebPush

@Suite struct VAPIDTokenTests {
    func parts(_ header: String) throws -> (token: [Substring], key: String) {
        #expect(header.hasPrefix("vapid t="))
        let rest = header.dropFirst("vapid t=".count)
        let comma = try #require(rest.firstIndex(of: ","))
        let token = rest[..<comma]
        let key = rest[comma...]
        try #require(key.hasPrefix(", k="))
        return (token.split(separator: ".", omittingEmptySubsequences: false), String(key.dropFirst(4)))
    }

    func json(_ part: Substring) throws -> JSON {
        try JSONParser.parse(try #require(Base64.decode(String(part))))
    }

    @Test func theTokenIsAnES256JWTForTheOriginWithTheSubjectAndAnExpiryTwelveHoursAhead() throws {
        let key = try P256.PrivateKey()
        let clock = ManualClock(wallMillis: 1_760_000_000_000)
        let vapid = VAPIDToken(key: key, subject: "mailto:ops@home.example.net", clock: clock)
        let header = try #require(vapid.authorization(for: "https://push.example.net"))
        let (token, k) = try parts(header)
        try #require(token.count == 3)
        #expect(k == Base64.encode(key.publicKey, urlSafe: true, padded: false))
        #expect(try json(token[0]) == ["typ": "JWT", "alg": "ES256"])
        let claims = try json(token[1])
        #expect(claims["aud"] == "https://push.example.net")
        #expect(claims["sub"] == "mailto:ops@home.example.net")
        #expect(claims["exp"]?.int64Value == Int64(1_760_000_000 + 12 * 3600))
        let publicKey = try #require(P256.PublicKey(uncompressed: key.publicKey))
        let signature = try #require(Base64.decode(String(token[2])))
        #expect(publicKey.isValidSignature(signature, for: Array("\(token[0]).\(token[1])".utf8)))
        #expect(!(token.joined(separator: ".") + k).contains("="), "base64url without padding")
    }

    @Test func aTokenIsReusedPerOriginUntilAnHourOfItIsLeft() throws {
        let clock = ManualClock(wallMillis: 1_760_000_000_000)
        let vapid = VAPIDToken(key: try P256.PrivateKey(), subject: "https://home.example.net", clock: clock)
        let first = try #require(vapid.authorization(for: "https://a.example"))
        let other = try #require(vapid.authorization(for: "https://b.example"))
        #expect(other != first, "each origin has its own audience")
        clock.advance(millis: 11 * 3600 * 1000 - 1000)
        #expect(vapid.authorization(for: "https://a.example") == first)
        clock.advance(millis: 1000)
        let renewed = try #require(vapid.authorization(for: "https://a.example"))
        #expect(renewed != first)
        #expect(try json(try parts(renewed).token[1])["exp"]?.int64Value == 1_760_000_000 + 23 * 3600)
    }

    @Test func aSubjectWithQuotesIsEscapedNotInjected() throws {
        let vapid = VAPIDToken(key: try P256.PrivateKey(), subject: #"mailto:a"b@c.example"#, clock: ManualClock())
        let header = try #require(vapid.authorization(for: "https://a.example"))
        let claims = try json(try parts(header).token[1])
        #expect(claims["sub"] == #"mailto:a"b@c.example"#)
        #expect(claims.objectValue?.count == 3)
    }

    @Test func manyOriginsKeepABoundedTable() throws {
        let vapid = VAPIDToken(key: try P256.PrivateKey(), subject: "https://home.example.net", clock: ManualClock())
        for i in 0..<(VAPIDToken.keptOrigins * 3) {
            #expect(vapid.authorization(for: "https://push\(i).example") != nil)
        }
        #expect(vapid.keptCount <= VAPIDToken.keptOrigins)
    }
}
