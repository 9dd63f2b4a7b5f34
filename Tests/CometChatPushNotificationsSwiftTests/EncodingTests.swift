import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift

/// The SDK's one percent-encoder, hex encoder and FNV-1a hash, which every module uses.
@Suite struct EncodingTests {
    @Test(
        "A path segment keeps ASCII letters, digits and -._~@ and encodes every other byte",
        arguments: [
            ("alice", "alice"), ("user@example.com", "user@example.com"), ("a-b_c.d~e", "a-b_c.d~e"),
            ("a b", "a%20b"), ("a/b", "a%2Fb"), ("../x", "..%2Fx"), ("a:b+c=d&e;f", "a%3Ab%2Bc%3Dd%26e%3Bf"),
            ("100%", "100%25"), ("é", "%C3%A9"), ("日本", "%E6%97%A5%E6%9C%AC"), ("?#", "%3F%23"), ("", ""),
        ])
    func pathSegment(text: String, encoded: String) {
        #expect(PNPercentEncoding.pathSegment(text) == encoded)
        #expect(encoded.removingPercentEncoding == text, "decodes back")
    }

    @Test func pathSegmentsMatchWhatFoundationWouldWrite() {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~@")
        for text in ["a b/c", "ä ö ü", "x%y", "\u{1F600}", "tab\there", "'\"<>[]{}|\\^`"] {
            #expect(PNPercentEncoding.pathSegment(text) == text.addingPercentEncoding(withAllowedCharacters: allowed))
        }
    }

    @Test func encodeKeepsWhatItIsTold() {
        let lettersAndHyphen = { PNPercentEncoding.isASCIILetterOrDigit($0) || $0 == UInt8(ascii: "-") }
        #expect(PNPercentEncoding.encode("m-1.b_c", keeping: lettersAndHyphen) == "m-1%2Eb%5Fc")
    }

    @Test func hexIsTwoDigitsAByte() {
        let bytes: [UInt8] = [0x00, 0x0f, 0xa0, 0xff, 0x42]
        #expect(PNHex.string(bytes) == "000fa0ff42")
        #expect(PNHex.string(bytes, uppercase: true) == "000FA0FF42")
        #expect(PNHex.string(Data(bytes)) == "000fa0ff42")
        #expect(PNHex.string(Data()) == "")
    }

    @Test func fnv1aMatchesItsReferenceValues() {
        #expect(PNFNV1a.hash64("".utf8) == 0xcbf2_9ce4_8422_2325)
        #expect(PNFNV1a.hash64("a".utf8) == 0xaf63_dc4c_8601_ec8c)
        #expect(PNFNV1a.hash64("foobar".utf8) == 0x8594_4171_f739_67e8)
        #expect(Fingerprint.of("alice-token") == "1e5aa62b/11")
    }
}
