@testable import Relaydeck
import Testing

@Suite struct PayloadFitTests {
    /// A payload of the texts' bytes plus a fixed 10 bytes around them.
    private func payload(_ texts: [String]) -> [UInt8] {
        Array(repeating: UInt8(ascii: "x"), count: 10) + texts.flatMap { Array($0.utf8) }
    }

    @Test func aPayloadWithinTheLimitIsLeftAsItIs() {
        let texts = ["body", "title"]
        #expect(PayloadFit.fit(texts, build: payload) == payload(texts))
    }

    @Test func theFirstTextGivesWayFirstByWholeCharactersWithAnEllipsis() {
        let body = String(repeating: "é", count: 3_000)  // 6,000 bytes
        let fitted = PayloadFit.fit([body, "title"]) { texts in
            #expect(texts[1] == "title")
            return payload(texts)
        }
        #expect(fitted.count <= PayloadFit.limit)
        #expect(fitted.count > PayloadFit.limit - 8)
        let text = String(decoding: fitted.dropFirst(10), as: UTF8.self)
        #expect(text.hasSuffix("…title"))
    }

    @Test func whenTheFirstTextIsUsedUpTheNextIsShortened() {
        let fitted = PayloadFit.fit([String(repeating: "a", count: 100), String(repeating: "b", count: 5_000)], build: payload)
        let text = String(decoding: fitted.dropFirst(10), as: UTF8.self)
        #expect(fitted.count <= PayloadFit.limit)
        #expect(text.first == "b" && text.hasSuffix("…"))
    }

    @Test func aCharacterOfManyScalarsIsNeverCutInTwo() {
        let family = "👨‍👩‍👧‍👦"  // 25 bytes
        let fitted = PayloadFit.fit([String(repeating: family, count: 200)], build: payload)
        let text = String(decoding: fitted.dropFirst(10), as: UTF8.self)
        #expect(text == String(repeating: family, count: 163) + "…")  // 10 + 163 × 25 + 3 = 4,088
    }

    @Test func aTextThatAppearsTwiceKeepsAsMuchAsFits() {
        let fitted = PayloadFit.fit([String(repeating: "a", count: 3_000)]) { texts in payload(texts + texts) }
        #expect(fitted.count <= PayloadFit.limit && fitted.count > PayloadFit.limit - 8)
    }

    @Test func aPayloadThatCannotFitEvenWithoutItsTextsIsBuiltWithEmptyTexts() {
        let fitted = PayloadFit.fit(["abc"]) { texts in Array(repeating: 0, count: 5_000) + texts.flatMap { Array($0.utf8) } }
        #expect(fitted.count == 5_000)
    }
}
