import Foundation

/// An attachment type the notification system recognises, found from the file's first bytes
/// (rule 18: the URL's extension and the server's `Content-Type` may lie).
public enum PNMediaType: String, Sendable, CaseIterable {
    /// JPEG.
    case jpeg
    /// PNG.
    case png
    /// GIF.
    case gif
    /// HEIC / HEIF.
    case heic
    /// WebP.
    case webp
    /// MPEG-4 video.
    case mp4
    /// QuickTime video.
    case quickTime
    /// MP3 audio.
    case mp3

    /// How many leading bytes ``sniff(_:)`` needs.
    public static let headerLength = 32

    /// The Uniform Type Identifier iOS expects (`UNNotificationAttachmentOptionsTypeHintKey`).
    public var uniformTypeIdentifier: String {
        switch self {
        case .jpeg: return "public.jpeg"
        case .png: return "public.png"
        case .gif: return "com.compuserve.gif"
        case .heic: return "public.heic"
        case .webp: return "org.webmproject.webp"
        case .mp4: return "public.mpeg-4"
        case .quickTime: return "com.apple.quicktime-movie"
        case .mp3: return "public.mp3"
        }
    }

    /// The file name extension the attachment is saved with.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .gif: return "gif"
        case .heic: return "heic"
        case .webp: return "webp"
        case .mp4: return "mp4"
        case .quickTime: return "mov"
        case .mp3: return "mp3"
        }
    }

    /// Whether this is a still or animated image (used for avatars).
    public var isImage: Bool { [.jpeg, .png, .gif, .heic, .webp].contains(self) }

    /// The type of a file that starts with `header`, or `nil` when it is not a recognised
    /// type (HTML error pages, JSON, truncated files).
    public static func sniff(_ header: Data) -> PNMediaType? {
        let b = [UInt8](header.prefix(headerLength))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + prefix.count && Array(b[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String, at offset: Int) -> Bool { starts(Array(text.utf8), at: offset) }

        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if ascii("GIF87a", at: 0) || ascii("GIF89a", at: 0) { return .gif }
        if ascii("RIFF", at: 0) && ascii("WEBP", at: 8) { return .webp }
        if ascii("ftyp", at: 4), b.count >= 12 {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) { return .heic }
            if brand == "qt  " { return .quickTime }
            return .mp4
        }
        if ascii("ID3", at: 0) || (b.count >= 2 && b[0] == 0xFF && (b[1] & 0xE0) == 0xE0) { return .mp3 }
        return nil
    }

    /// The type of the file at `url`, reading only its first bytes.
    public static func sniff(fileAt url: URL) -> PNMediaType? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: headerLength) else { return nil }
        return sniff(header)
    }
}
