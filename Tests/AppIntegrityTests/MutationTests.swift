import Foundation
import Testing
import TestSupport
@testable import AppIntegrity

/// A generated-input run over the CBOR decoder and the attestation parser: seeded random
/// mutations of real attestation objects (and of their authenticator data), so the same
/// inputs come back on every run. Each input must end in a value or an error: a crash or a
/// hang fails the whole test binary. By default 20,000 mutated objects, 20,000 random byte
/// strings and 2,000 full verifications: about 1.3 s in a debug build. Set
/// `RELAYDECK_MUTATIONS` to a larger count for a longer run (1,000,000: about 80 s).
@Suite struct MutationTests {
    static let seeds: [[UInt8]] = AppAttestVector.load("attestation").map(\.object)
    static let iterations = Int(ProcessInfo.processInfo.environment["RELAYDECK_MUTATIONS"] ?? "") ?? 20_000

    /// One random change: a bit, a byte, an inserted run, a cut, a truncation, a copied run,
    /// or a CBOR head with an extreme argument.
    static func mutate(_ input: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = input
        let rounds = Int.random(in: 1...4, using: &random)
        for _ in 0..<rounds {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<7, using: &random) {
            case 0 where !bytes.isEmpty:
                bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            case 1 where !bytes.isEmpty:
                bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 2:
                let run = (0..<Int.random(in: 1...16, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                bytes.insert(contentsOf: run, at: position)
            case 3 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...64, using: &random))
                bytes.removeSubrange(position..<end)
            case 4:
                bytes = Array(bytes.prefix(position))
            case 5 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...256, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0...bytes.count, using: &random))
            default:
                // A head of a random major type with an 8-byte argument near the top.
                let major = UInt8.random(in: 0...7, using: &random) << 5
                let head: [UInt8] = [major | 27, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, UInt8.random(in: 0...255, using: &random)]
                bytes.insert(contentsOf: head, at: position)
            }
        }
        return bytes
    }

    @Test func theDecoderAndTheParserSurviveMutatedAttestations() throws {
        try #require(!Self.seeds.isEmpty)
        var random = SplitMix64(seed: 0x5EED_A77E_57)
        var decoded = 0
        var parsed = 0
        for iteration in 0..<Self.iterations {
            let seed = Self.seeds[iteration % Self.seeds.count]
            let input = Self.mutate(seed, &random)
            if (try? CBORDecoder.decode(input)) != nil { decoded += 1 }
            if let object = try? AttestationObject(input) {
                parsed += 1
                _ = try? AuthenticatorData(Self.mutate(object.authenticatorData, &random))
            }
        }
        // Some mutations keep the object readable: the parser's deeper paths were reached.
        #expect(decoded > 0)
        #expect(parsed > 0)
    }

    @Test func theVerifierSurvivesMutatedAttestations() throws {
        let vectors = AppAttestVector.load("attestation")
        var random = SplitMix64(seed: 0xA77E_57ED)
        var verified = 0
        for iteration in 0..<(Self.iterations / 10) {
            let vector = vectors[iteration % vectors.count]
            let verifier = try #require(AppAttestVerifier(appIDs: [vector.appID], environment: AppAttestEnvironment(rawValue: vector.environment)!))
            let object = Self.mutate(vector.object, &random)
            if (try? verifier.verify(object: object, keyID: vector.keyID, clientDataHash: vector.clientDataHash, at: vector.verifyAt)) != nil {
                verified += 1
            }
        }
        // A mutation that still verifies could only touch bytes no check reads (the receipt).
        #expect(verified < Self.iterations / 10)
    }

    @Test func randomBytesNeverCrashTheDecoder() {
        var random = SplitMix64(seed: 42)
        for _ in 0..<Self.iterations {
            let count = Int.random(in: 0...64, using: &random)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = try? CBORDecoder.decode(bytes)
        }
    }
}
