#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation

// AVFAudio — what the Calls adapters use. https://developer.apple.com/documentation/avfaudio

open class AVAudioSession: NSObject {
    public struct Category: RawRepresentable, Hashable, @unchecked Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
    }
    public struct Mode: RawRepresentable, Hashable, @unchecked Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
        public static let videoChat = Mode(rawValue: "AVAudioSessionModeVideoChat")
    }
    public struct CategoryOptions: OptionSet, @unchecked Sendable {
        public var rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
    }
    public enum RecordPermission: UInt, @unchecked Sendable {
        case undetermined = 1970168948
        case denied = 1684369017
        case granted = 1735552628
    }
    open class func sharedInstance() -> AVAudioSession { fatalError() }
    open func setCategory(
        _ category: AVAudioSession.Category, mode: AVAudioSession.Mode, options: AVAudioSession.CategoryOptions = []
    ) throws {
        fatalError()
    }
    /// Deprecated in iOS 17.
    open var recordPermission: AVAudioSession.RecordPermission { fatalError() }
    /// Deprecated in iOS 17.
    open func requestRecordPermission(_ response: @escaping (Bool) -> Void) { fatalError() }
}

/// Swift names it `AVAudioApplication.recordPermission`, like the property; a stub cannot
/// declare both, so it keeps the Objective-C name.
public enum AVAudioApplicationRecordPermission: Int, @unchecked Sendable {
    case undetermined = 1970168948
    case denied = 1684369017
    case granted = 1735552628
}

open class AVAudioApplication: NSObject {
    open class var shared: AVAudioApplication { fatalError() }
    open var recordPermission: AVAudioApplicationRecordPermission { fatalError() }
    open class func requestRecordPermission(completionHandler response: @escaping @Sendable (Bool) -> Void) { fatalError() }
}
