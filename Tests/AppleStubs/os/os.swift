#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

// os — Logger (iOS 14+). https://developer.apple.com/documentation/os/logger

public struct OSLogPrivacy: Sendable {
    public static var auto: OSLogPrivacy { fatalError() }
    public static var `public`: OSLogPrivacy { fatalError() }
    public static var `private`: OSLogPrivacy { fatalError() }
    public static var sensitive: OSLogPrivacy { fatalError() }
}

public struct OSLogInterpolation: StringInterpolationProtocol {
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) {}
    public mutating func appendInterpolation(_ argumentString: @autoclosure @escaping () -> String, privacy: OSLogPrivacy = .auto) {}
    public mutating func appendInterpolation(_ number: @autoclosure @escaping () -> Int, privacy: OSLogPrivacy = .auto) {}
}

public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    public init(stringInterpolation: OSLogInterpolation) {}
    public init(stringLiteral value: String) {}
}

public struct Logger: @unchecked Sendable {
    public init(subsystem: String, category: String) {}
    public func debug(_ message: OSLogMessage) {}
    public func info(_ message: OSLogMessage) {}
    public func notice(_ message: OSLogMessage) {}
    public func warning(_ message: OSLogMessage) {}
    public func error(_ message: OSLogMessage) {}
    public func fault(_ message: OSLogMessage) {}
}
