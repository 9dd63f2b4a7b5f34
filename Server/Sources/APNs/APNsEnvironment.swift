/// Which APNs servers to talk to.
public enum APNsEnvironment: Sendable, Hashable {
    /// `api.push.apple.com`.
    case production
    /// `api.sandbox.push.apple.com` (development builds).
    case sandbox
    /// Any other base URL, such as a local mock (`https://127.0.0.1:8443`).
    case custom(baseURL: String)

    /// The base URL requests go to, without a trailing slash.
    public var baseURL: String {
        switch self {
        case .production: "https://api.push.apple.com"
        case .sandbox: "https://api.sandbox.push.apple.com"
        case .custom(let url): url.hasSuffix("/") ? String(url.dropLast()) : url
        }
    }
}
