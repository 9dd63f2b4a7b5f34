#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to the process's standard streams without buffering (scripts wait for lines).
public enum StandardStream {
    /// Writes `line` and a newline to standard output.
    public static func out(_ line: String) { write(line + "\n", to: 1) }

    /// Writes `line` and a newline to standard error.
    public static func error(_ line: String) { write(line + "\n", to: 2) }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                let written = Darwin.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing whitespace and newlines (ASCII and Unicode).
    public var trimmingWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return String(self[first...last])
    }
}

extension String {
    /// `directory/name`, with exactly one slash between them.
    public func appendingPathComponent(_ name: String) -> String {
        if isEmpty { return name }
        return hasSuffix("/") ? self + name : self + "/" + name
    }
}

extension Sequence<UInt8> {
    /// Lower-case hexadecimal, two digits per byte.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
