import DomainTestSupport
import Relaydeck
import TestSupport
import Testing

@Suite struct IdentifierTests {
    @Test func zeroTimeAndZeroBytesAreAllZeroDigits() {
        let id = Identifier.make("acc_", millis: 0, random: ScriptedRandom([0]))
        #expect(id == "acc_" + String(repeating: "0", count: 26))
    }

    /// 130 bits (two zero bits, 48 bits of time, 80 random bits): the lowest time bit is the
    /// lowest bit of the tenth digit.
    @Test func timeFillsTheFirstTenDigits() {
        let id = Identifier.make("key_", millis: 1, random: ScriptedRandom([0]))
        #expect(id == "key_0000000001" + String(repeating: "0", count: 16))
    }

    @Test func allBitsSetGiveSevenThenZ() {
        let id = Identifier.make("acc_", millis: 0xFFFF_FFFF_FFFF, random: ScriptedRandom([0xFF]))
        #expect(id == "acc_7" + String(repeating: "z", count: 25))
    }

    /// The random bytes follow the time in the order drawn: time 1,760,000,000,123 and the
    /// bytes 1 to 10 (the digits worked out apart, from the 16 bytes as one number).
    @Test func theRandomBytesFollowTheTimeInTheOrderDrawn() {
        let id = Identifier.make("tsk_", millis: 1_760_000_000_123, random: ScriptedRandom(Array(1...10)))
        #expect(id == "tsk_01k742sg3v041061050r3gg28a")
    }

    /// The ULID reference's example, `ulid(1469918176385)` = `01ARYZ6S41TSV4RRFFQ69G5FAV`:
    /// the same ten time characters, lowercased.
    @Test func timeDigitsMatchTheULIDLayout() {
        let id = Identifier.make("acc_", millis: 1_469_918_176_385, random: SeededRandom())
        #expect(id.hasPrefix("acc_01aryz6s41"))
    }

    @Test func timesBeyondFortyEightBitsKeepTheLowBitsAndNegativeTimesAreZero() {
        let random = ScriptedRandom([0])
        #expect(Identifier.make("acc_", millis: 0x1_0000_0000_0001, random: random) == Identifier.make("acc_", millis: 1, random: random))
        #expect(Identifier.make("acc_", millis: -5, random: random) == "acc_" + String(repeating: "0", count: 26))
    }

    @Test func madeIDsAreWellFormedLowercaseCrockford() {
        let random = SeededRandom()
        let alphabet = Set("0123456789abcdefghjkmnpqrstvwxyz")
        for step in 0..<200 {
            let id = Identifier.make("key_", millis: 1_760_000_000_000 + Int64(step), random: random)
            #expect(id.utf8.count == 30)
            #expect(id.hasPrefix("key_"))
            #expect(id.dropFirst(4).allSatisfy { alphabet.contains($0) })
            #expect(Identifier.isWellFormed(Substring(id), prefix: "key_"))
        }
    }

    @Test func laterMillisecondsSortLater() {
        let random = SeededRandom()
        var previous = Identifier.make("acc_", millis: 1_760_000_000_000, random: random)
        for millis in [1_760_000_000_001, 1_760_000_001_000, 1_760_086_400_000, 2_000_000_000_000] as [Int64] {
            let next = Identifier.make("acc_", millis: millis, random: random)
            #expect(previous < next)
            previous = next
        }
    }

    @Test(arguments: [
        "acc_0000000000000000000000000",    // 25 digits
        "acc_000000000000000000000000000",  // 27 digits
        "key_01arz3ndektsv4rrffq69g5fav",   // another prefix
        "ACC_01arz3ndektsv4rrffq69g5fav",
        "acc_01ARZ3NDEKTSV4RRFFQ69G5FAV",   // uppercase
        "acc_01arz3ndektsv4rrffq69g5fau",   // u is not Crockford
        "acc_01arz3ndektsv4rrffq69g5fai",
        "acc_01arz3ndektsv4rrffq69g5fal",
        "acc_01arz3ndektsv4rrffq69g5fao",
        "acc_01arz3ndektsv4rrffq69g5fa-",
        "acc_01arz3ndektsv4rrffq69g5faé",
        "",
        "acc_",
    ])
    func malformedIDsAreRefused(text: String) {
        #expect(!Identifier.isWellFormed(Substring(text), prefix: "acc_"))
    }

    @Test func aWellFormedIDInsideLongerTextIsChecked() {
        let text = "/v1/keys/key_01arz3ndektsv4rrffq69g5fav"
        let id = text.dropFirst("/v1/keys/".count)
        #expect(Identifier.isWellFormed(id, prefix: "key_"))
        #expect(!Identifier.isWellFormed(id, prefix: "acc_"))
    }
}
