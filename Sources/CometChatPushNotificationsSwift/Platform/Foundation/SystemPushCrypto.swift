import Foundation

extension PNPlatform {
    /// The system's cryptography for private push: CryptoKit on Apple platforms, OpenSSL on
    /// Linux, and ``PNUnavailablePushCrypto`` elsewhere (private pushes then stay placeholders).
    public static var systemPushCrypto: PNPushCrypto {
        #if canImport(CryptoKit) && canImport(Security)
        return CryptoKitPushCrypto()
        #elseif canImport(CCryptoLinux)
        return OpenSSLPushCrypto()
        #else
        return PNUnavailablePushCrypto()
        #endif
    }
}
