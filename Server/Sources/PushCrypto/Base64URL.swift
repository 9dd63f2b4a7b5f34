#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Base64url without padding (RFC 4648 §5, as RFC 7515 §2 and RFC 8291 use it), on bytes: it
/// runs once per private push (`enc`, a few kilobytes), so it never walks `Character`s.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Each byte's value in the alphabet, 0xFF for a byte outside it.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes as unpadded base64url text.
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let input = Array(bytes)
        return String(unsafeUninitializedCapacity: encodedLength(input.count)) { output in
            write(input, to: UnsafeMutableRawBufferPointer(output))
        }
    }

    /// Appends the unpadded base64url text of `bytes` to `output`, with no text in between: a
    /// private push's `enc` goes straight into its payload.
    public static func append(_ bytes: [UInt8], to output: inout Data) {
        let start = output.count
        output.count += encodedLength(bytes.count)
        output.withUnsafeMutableBytes { buffer in
            _ = write(bytes, to: UnsafeMutableRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// The length of the unpadded text of `count` bytes.
    public static func encodedLength(_ count: Int) -> Int { (count * 4 + 2) / 3 }

    /// Writes the text of `input` at the start of `output` (at least ``encodedLength(_:)`` bytes);
    /// returns its length.
    private static func write(_ input: [UInt8], to output: UnsafeMutableRawBufferPointer) -> Int {
        alphabet.withUnsafeBufferPointer { alphabet in
            var index = 0
            var position = 0
            while index + 3 <= input.count {
                let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output[position] = alphabet[Int(chunk >> 18 & 63)]
                output[position + 1] = alphabet[Int(chunk >> 12 & 63)]
                output[position + 2] = alphabet[Int(chunk >> 6 & 63)]
                output[position + 3] = alphabet[Int(chunk & 63)]
                index += 3
                position += 4
            }
            let rest = input.count - index
            if rest > 0 {
                let chunk = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
                output[position] = alphabet[Int(chunk >> 18 & 63)]
                output[position + 1] = alphabet[Int(chunk >> 12 & 63)]
                position += 2
                if rest == 2 {
                    output[position] = alphabet[Int(chunk >> 6 & 63)]
                    position += 1
                }
            }
            return position
        }
    }

    /// Decodes base64url text, unpadded (or with the `=` padding of its length); `nil` if it is
    /// malformed, including standard base64's `+` and `/`.
    public static func decode(_ text: String) -> [UInt8]? {
        var input = Array(text.utf8)
        if input.count % 4 == 0 {
            for _ in 0..<2 where input.last == UInt8(ascii: "=") { input.removeLast() }
        }
        guard input.count % 4 != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in input {
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // The bits left over must be zero (one canonical text per value).
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }
}
