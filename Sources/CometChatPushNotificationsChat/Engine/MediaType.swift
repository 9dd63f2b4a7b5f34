import Foundation

/// An attachment type iOS accepts in a notification, found from the file's first bytes (rule 18:
/// the URL's extension and the server's `Content-Type` may lie), with iOS's size limit for it
/// (rule 29). Other types (HEIC, WebP, QuickTime, …) are not attached.
public enum PNMediaType: String, Sendable, CaseIterable {
    /// JPEG image (up to 10 MB).
    case jpeg
    /// PNG image (up to 10 MB).
    case png
    /// GIF image (up to 10 MB).
    case gif
    /// AIFF audio (up to 5 MB).
    case aiff
    /// WAV audio (up to 5 MB).
    case wav
    /// MP3 audio (up to 5 MB).
    case mp3
    /// MPEG-4 audio, M4A (up to 5 MB).
    case m4a
    /// MPEG or MPEG-2 video (up to 50 MB).
    case mpeg
    /// MPEG-4 video (up to 50 MB).
    case mp4
    /// AVI video (up to 50 MB).
    case avi

    /// How many leading bytes ``sniff(_:)`` needs.
    public static let headerLength = 32

    /// The largest file iOS attaches of this type: images 10 MB, audio 5 MB, video 50 MB.
    public var maxBytes: Int {
        switch self {
        case .jpeg, .png, .gif: return 10 * 1024 * 1024
        case .aiff, .wav, .mp3, .m4a: return 5 * 1024 * 1024
        case .mpeg, .mp4, .avi: return 50 * 1024 * 1024
        }
    }

    /// The largest file of any type: what a download may bring before its type is known.
    public static var largestMaxBytes: Int { allCases.map(\.maxBytes).max() ?? 0 }

    /// The Uniform Type Identifier iOS expects (`UNNotificationAttachmentOptionsTypeHintKey`).
    public var uniformTypeIdentifier: String {
        switch self {
        case .jpeg: return "public.jpeg"
        case .png: return "public.png"
        case .gif: return "com.compuserve.gif"
        case .aiff: return "public.aiff-audio"
        case .wav: return "com.microsoft.waveform-audio"
        case .mp3: return "public.mp3"
        case .m4a: return "public.mpeg-4-audio"
        case .mpeg: return "public.mpeg"
        case .mp4: return "public.mpeg-4"
        case .avi: return "public.avi"
        }
    }

    /// The file name extension the attachment is saved with.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .gif: return "gif"
        case .aiff: return "aiff"
        case .wav: return "wav"
        case .mp3: return "mp3"
        case .m4a: return "m4a"
        case .mpeg: return "mpg"
        case .mp4: return "mp4"
        case .avi: return "avi"
        }
    }

    /// Whether this is a still or animated image (used for avatars).
    public var isImage: Bool { [.jpeg, .png, .gif].contains(self) }

    /// The type of a file that starts with `header`, or `nil` when iOS would not attach it
    /// (HTML error pages, JSON, truncated files, HEIC, WebP, QuickTime).
    public static func sniff(_ header: Data) -> PNMediaType? {
        let b = [UInt8](header.prefix(headerLength))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + prefix.count && Array(b[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String, at offset: Int) -> Bool { starts(Array(text.utf8), at: offset) }

        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if ascii("GIF87a", at: 0) || ascii("GIF89a", at: 0) { return .gif }
        if ascii("FORM", at: 0) && (ascii("AIFF", at: 8) || ascii("AIFC", at: 8)) { return .aiff }
        if ascii("RIFF", at: 0) && ascii("WAVE", at: 8) { return .wav }
        if ascii("RIFF", at: 0) && ascii("AVI ", at: 8) { return .avi }
        if ascii("ftyp", at: 4), b.count >= 12 {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            if ["M4A ", "M4B "].contains(brand) { return .m4a }
            if ["isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "dash", "MSNV"].contains(brand) {
                return .mp4
            }
            return nil  // HEIC, QuickTime (`qt  `), 3GP, …: not an attachment type iOS lists
        }
        if starts([0x00, 0x00, 0x01, 0xBA]) || starts([0x00, 0x00, 0x01, 0xB3]) { return .mpeg }
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
