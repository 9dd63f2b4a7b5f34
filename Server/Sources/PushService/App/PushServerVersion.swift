/// The version `push-server --version` prints; the same as the top entry of CHANGELOG.md.
public enum PushServerVersion {
    /// The version number.
    public static let current = "2.0.0"
}
