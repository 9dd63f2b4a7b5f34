#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCrypto
import Testing

/// `Base64URL` on bytes (the `enc` of every private push goes through it): the same text as
/// Foundation's base64 with the URL alphabet and no padding, and a strict decoder.
@Suite struct Base64URLTests {
    @Test func encodingMatchesFoundationsBase64WithTheURLAlphabetAndDecodingRoundTrips() {
        for length in Array(0...70) + [4_096, 4_097, 4_098] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ length &* 7 &+ ($0 >> 3)) }
            var expected = Data(bytes).base64EncodedString()
            while expected.hasSuffix("=") { expected.removeLast() }
            expected = expected.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            let text = Base64URL.encode(bytes)
            #expect(text == expected, "\(length) bytes")
            var appended = Data("{".utf8)
            Base64URL.append(bytes, to: &appended)
            #expect(appended == Data(("{" + expected).utf8), "\(length) bytes appended")
            #expect(Base64URL.decode(text) == bytes, "\(length) bytes")
        }
        // RFC 4648 §10's vectors, and padding of the right length is accepted.
        for (plain, coded) in [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE")] {
            #expect(Base64URL.encode(Array(plain.utf8)) == coded)
            #expect(Base64URL.decode(coded) == Array(plain.utf8))
        }
        #expect(Base64URL.decode("Zg==") == Array("f".utf8))
    }

    @Test func theDecoderRefusesWhatIsNotBase64URL() {
        for bad in ["Zm9v+w", "Zm9v/w", "Z", "Zm9vY", "Zh", "Zm9=", "Zg=", "Zm 9v", "Zm9vé"] {
            #expect(Base64URL.decode(bad) == nil, "\(bad)")
        }
    }
}
